//! Prints what the Python frontend sees in files: key uses and units, one per line.
//! `cargo run -p keylint-python --example dump -- FILE.py…`

use keylint_python::LANG;

/// The binary's file loader.
#[path = "../../redis-keylint/src/loader.rs"]
mod loader;

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(src) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: unreadable");
            continue;
        };
        let dir = std::path::Path::new(&path)
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .to_path_buf();
        let loader = loader::DirLoader::new(&dir);
        let m =
            keylint_python::lower_with(&src, &keylint_python::Options::default(), Some(&loader));
        let line = |o: usize| src[..o.min(src.len())].matches('\n').count() + 1;
        if std::env::var_os("DUMP_ALL").is_some() {
            for s in &m.scripts {
                println!(
                    "{path}: script {:?} keys {:?} units {:?}",
                    s.mode, s.keys, s.units
                );
            }
            for (i, k) in m.keys.iter().enumerate() {
                println!(
                    "{path}: key {i} {} {:?} {:?}",
                    k.template.display(LANG),
                    k.origin,
                    k.span
                );
            }
            for c in &m.script_calls {
                println!(
                    "{path}: script call {:?} numkeys {:?} passed {:?} reads {:?}",
                    c.span, c.numkeys, c.passed, c.reads
                );
            }
        }
        for u in &m.units {
            let keys: Vec<String> = u
                .keys
                .iter()
                .map(|&k| m.keys[k].template.display(LANG))
                .collect();
            println!(
                "{path}:{} {:?} {} {:?} [{}]",
                line(u.span.start),
                u.kind,
                u.name,
                u.policy,
                keys.join(", ")
            );
        }
    }
}
