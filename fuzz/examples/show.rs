//! Prints the source a structured fuzz target builds from an input file, to turn an
//! artifact into a regression test:
//!
//!     cargo run --release --example show -- python_structured artifacts/…/crash-…
fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(target), Some(path)) = (args.next(), args.next()) else {
        eprintln!("usage: show lua_structured|python_structured FILE");
        std::process::exit(2);
    };
    let data = std::fs::read(&path).expect("read the input");
    let src = match target.as_str() {
        "lua_structured" => redis_keylint_fuzz::gen::lua_program(&data),
        "python_structured" => redis_keylint_fuzz::gen::python_program(&data),
        _ => String::from_utf8_lossy(&data).into_owned(),
    };
    print!("{src}");
}
