//! Prints the keys and units the frontend finds in JavaScript or TypeScript files:
//! `cargo run -p keylint-javascript --example dump -- FILE…`.

fn main() {
    for path in std::env::args().skip(1) {
        let ext = path.rsplit('.').next().unwrap_or("");
        let Some(dialect) = keylint_javascript::Dialect::of_extension(ext) else {
            eprintln!("{path}: not a JavaScript or TypeScript file");
            continue;
        };
        let Ok(source) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: cannot read");
            continue;
        };
        let m = keylint_javascript::lower(&source, dialect);
        println!("{path}: {} keys, {} units", m.keys.len(), m.units.len());
        let line = |off: usize| source[..off.min(source.len())].matches('\n').count() + 1;
        for k in &m.keys {
            println!(
                "  key {}:{} {}",
                line(k.span.start),
                k.command,
                k.template.display(keylint_javascript::LANG)
            );
        }
        for u in &m.units {
            println!(
                "  unit {} {:?} {} {:?} keys={:?}",
                line(u.span.start),
                u.kind,
                u.name,
                u.policy,
                u.keys
            );
        }
    }
}
