//! Developer tool: `cargo run --release -p zvmsim-bench --example bench [quick]`.
#![allow(clippy::print_stdout)]
fn main() {
    let quick = std::env::args().nth(1).as_deref() == Some("quick");
    println!("{}", zvmsim_bench::standard(quick));
}
