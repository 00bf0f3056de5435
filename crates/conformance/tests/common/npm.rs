//! The Node.js clients the JavaScript tests run: the packages pinned in
//! `fixtures/javascript/package.json`, installed from the npm registry once per
//! version of that file into Cargo's test temp dir.

use conformance::run_ok as run;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The folder where the fixtures' package.json is installed (once per version of
/// it); `None` (after saying so) when Node.js is not installed.
pub fn installed_packages() -> Option<PathBuf> {
    if !has("node") || !has("npm") {
        let msg = "node and npm are needed to install ioredis and node-redis \
                   (Debian/Ubuntu: apt-get install -y nodejs npm)";
        if std::env::var_os("CI").is_some() {
            panic!("{msg}");
        }
        eprintln!("SKIPPED: the live JavaScript client test did not run: {msg}");
        return None;
    }
    let manifest = std::fs::read_to_string(root().join("fixtures/javascript/package.json"))
        .expect("fixtures/javascript/package.json");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("js-clients");
    let installed = dir.join("package.json");
    let ready = dir.join("node_modules/ioredis/package.json").exists()
        && dir.join("node_modules/redis/package.json").exists()
        && std::fs::read_to_string(&installed).is_ok_and(|m| m == manifest);
    if !ready {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&installed, &manifest).unwrap();
        run(
            Command::new("npm").current_dir(&dir).args([
                "install",
                "--no-audit",
                "--no-fund",
                "--no-package-lock",
            ]),
            "installing ioredis and node-redis from the npm registry",
        );
    }
    Some(dir)
}
