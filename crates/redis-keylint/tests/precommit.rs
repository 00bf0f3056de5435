//! The pre-commit hook, proven with the real `pre-commit try-repo`: pre-commit is
//! installed from PyPI into a virtual environment this test creates, builds the hook
//! from this repository with `cargo install` (`language: rust`), and runs it on a small
//! repository with one bad file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn sh(cmd: &mut Command) -> Output {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    o
}

fn ok(cmd: &mut Command) -> Output {
    let o = sh(cmd);
    assert!(
        o.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn venv_with_pre_commit(dir: &Path) -> PathBuf {
    let venv = dir.join("venv");
    ok(Command::new("python3").arg("-m").arg("venv").arg(&venv));
    let pip = venv.join("bin/pip");
    ok(Command::new(&pip).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "pre-commit>=3,<5",
    ]));
    venv.join("bin/pre-commit")
}

#[test]
fn pre_commit_try_repo_runs_the_hook() {
    let this_repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    assert!(
        this_repo.join(".git").exists(),
        "pre-commit try-repo needs this project to be a git checkout"
    );
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("precommit");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let pre_commit = venv_with_pre_commit(&tmp);

    let user = tmp.join("user-repo");
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

    let run = |user: &Path| {
        sh(Command::new(&pre_commit)
            .arg("try-repo")
            .arg(&this_repo)
            .args(["redis-keylint", "--all-files", "--color", "never"])
            .current_dir(user)
            .env("PRE_COMMIT_HOME", tmp.join("cache"))
            .env_remove("NO_COLOR"))
    };
    let o = run(&user);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(1), "the hook must fail:\n{text}");
    assert!(
        text.contains("error[RK001]: keys of `MGET` are in different hash slots"),
        "{text}"
    );
    assert!(text.contains("ops/migrate.redis:1:24"), "{text}");

    std::fs::write(
        user.join("ops/migrate.redis"),
        "MGET {user:1000}:profile {user:1000}:cart\n",
    )
    .unwrap();
    ok(Command::new("git").args(["add", "."]).current_dir(&user));
    let o = run(&user);
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
