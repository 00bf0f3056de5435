//! The census library alone on standard input (what `redis-keylint census -` runs,
//! without rendering): for profiling against `floor`.

use keylint_census::{read_dump, Census, KeyForm, Layout};
use std::io::{self, BufReader};

fn main() -> io::Result<()> {
    let mut census = Census::default();
    let reader = BufReader::with_capacity(1 << 20, io::stdin().lock());
    read_dump(reader, KeyForm::Auto, &mut census, |_, _| {})?;
    let report = census.report(&Layout::even(3).map_err(io::Error::other)?);
    eprintln!("{} keys, {} families", report.keys, report.families.len());
    Ok(())
}
