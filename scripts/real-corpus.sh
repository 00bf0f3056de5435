#!/usr/bin/env bash
# Runs redis-keylint on the real-code corpus (corpus/projects.toml) and measures recall
# and precision against the hand labels in corpus/labels/. See docs/real-code.md.
#
#   bash scripts/real-corpus.sh --mirrors DIR            # materialise, build, run
#   bash scripts/real-corpus.sh --mirrors DIR --bless    # rewrite corpus/expected/*.txt
#   bash scripts/real-corpus.sh                          # sources already materialised
#
# --mirrors DIR (or $KEYLINT_REAL_MIRRORS): the git mirrors fetched for the repositories
#   listed in corpus/projects.toml, one bare git directory per repository, laid out as
#   DIR/<owner>+<name>/repo (`git clone --mirror https://github.com/<owner>/<name>
#   DIR/<owner>+<name>/repo` makes one; a clone with a work tree there, whose git
#   directory is DIR/<owner>+<name>/repo/.git, works too). Each mirror must contain the
#   pinned commit.
# --src DIR (default target/real-corpus): where the projects are materialised, one
#   directory per project name. A project whose directory already holds the pinned
#   commit (recorded in .keylint-commit) is left as it is.
# --bless: rewrite the expected snapshots instead of comparing with them.
# --holdout: also materialise and run the holdout sets (projects marked `holdout = true`),
#   and report their totals apart from the tuning set's. --holdout-set NAME: only the
#   holdout set NAME (e.g. holdout8), when another one is labelled in advance. The other named sets (`set =
#   "javascript"` without `holdout`) are always materialised and run, and totalled apart.
#
# The sources are never committed. Each materialised project gets an empty git
# repository of its own so that ignore files of the directories above it (this
# repository's `/target` rule, for one) do not apply: the project is linted as a user
# who cloned it would lint it, with its own ignore files and no redis-keylint config.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MIRRORS=${KEYLINT_REAL_MIRRORS:-}
SRC=$ROOT/target/real-corpus
BLESS=""
HOLDOUT=""
while [ $# -gt 0 ]; do
    case $1 in
    --mirrors) MIRRORS=$2; shift 2 ;;
    --src) SRC=$2; shift 2 ;;
    --bless) BLESS=1; shift ;;
    --holdout) HOLDOUT=1; shift ;;
    --holdout-set) HOLDOUT=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$SRC"
SRC=$(cd "$SRC" && pwd)

# name repo commit paths (comma-separated, or -), one project a line
projects=$(HOLDOUT=$HOLDOUT python3 - <<'PY'
import os, tomllib
with open("corpus/projects.toml", "rb") as f:
    for p in tomllib.load(f)["project"]:
        want = os.environ.get("HOLDOUT", "")
        if p.get("holdout") and not (want == "1" or p.get("set", "holdout") in want.split(",")):
            continue
        print(p["name"], p["repo"], p["commit"], ",".join(p.get("paths", [])) or "-")
PY
)

missing=0
while read -r name repo commit paths; do
    dest=$SRC/$name
    if [ -f "$dest/.keylint-commit" ] && [ "$(cat "$dest/.keylint-commit")" = "$commit" ]; then
        continue
    fi
    if [ -z "$MIRRORS" ]; then
        echo "missing: $name ($repo) is not materialised and no --mirrors was given" >&2
        missing=$((missing + 1))
        continue
    fi
    git_dir=$MIRRORS/${repo/\//+}/repo
    # a mirror may also be a clone with a work tree: use its .git
    if [ -d "$git_dir/.git" ]; then
        git_dir=$git_dir/.git
    fi
    if ! git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "missing: $repo at $commit (no mirror at $git_dir, or it lacks the commit)" >&2
        missing=$((missing + 1))
        continue
    fi
    echo "materialising $name ($repo @ ${commit:0:12})" >&2
    rm -rf "$dest"
    mkdir -p "$dest"
    tarball=$(mktemp)
    if git --git-dir="$git_dir" archive --format=tar "$commit" >"$tarball" 2>/dev/null; then
        tar -C "$dest" -xf "$tarball"
    else
        # A snapshot may lack the contents of some large files (test data, models or
        # databases over the store's size limit): take every file whose contents it has.
        echo "  some file contents are missing: taking the files whose contents are present" >&2
        mapfile -t present < <(git --git-dir="$git_dir" ls-tree -r -z "$commit" |
            python3 -c '
import subprocess, sys
git_dir = sys.argv[1]
entries = [e for e in sys.stdin.buffer.read().split(b"\0") if e]
blobs = [(e.split(b"\t", 1)[0].split()[2], e.split(b"\t", 1)[1]) for e in entries
         if e.split()[1] == b"blob"]
out = subprocess.run(["git", "--git-dir=" + git_dir, "cat-file", "--batch-check"],
                     input=b"".join(o + b"\n" for o, _ in blobs), capture_output=True).stdout
for (_, path), line in zip(blobs, out.splitlines()):
    if not line.endswith(b" missing"):
        sys.stdout.buffer.write(path + b"\n")
' "$git_dir")
        if [ "${#present[@]}" -eq 0 ]; then
            echo "missing: $repo at $commit has no readable file" >&2
            missing=$((missing + 1))
            rm -f "$tarball"
            continue
        fi
        # In batches, so that a large tree does not overflow the argument list.
        for ((i = 0; i < ${#present[@]}; i += 1000)); do
            git --literal-pathspecs --git-dir="$git_dir" archive --format=tar "$commit" \
                -- "${present[@]:i:1000}" >"$tarball"
            tar -C "$dest" -xf "$tarball"
        done
    fi
    rm -f "$tarball"
    git -C "$dest" init -q
    echo "$commit" >"$dest/.keylint-commit"
done <<<"$projects"
if [ "$missing" -gt 0 ]; then
    echo "$missing project(s) missing: the test runs on the others and reports them" >&2
fi

cargo build --release -p redis-keylint >&2
KEYLINT_REAL=1 KEYLINT_REAL_DIR=$SRC KEYLINT_BLESS=$BLESS KEYLINT_REAL_HOLDOUT=$HOLDOUT \
    cargo test --release --test real_corpus -- --nocapture
