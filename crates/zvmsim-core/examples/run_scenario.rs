//! Developer tool: run a scenario file and print its summary as JSON.
//! `cargo run --release -p zvmsim-core --example run_scenario -- FILE [key=value ...]`
#![allow(clippy::print_stdout, clippy::print_stderr)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run_scenario FILE [key=value ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).expect("read scenario");
    let t0 = std::time::Instant::now();
    let mut sim = match zvmsim_core::system::Simulation::from_toml(&text, path, None, &args[1..]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let built = t0.elapsed().as_secs_f64();
    sim.run();
    let mut s = sim.summary();
    s.insert("wall_build_s".into(), serde_json::json!(built));
    s.insert(
        "wall_s".into(),
        serde_json::json!(t0.elapsed().as_secs_f64()),
    );
    if std::env::var("ZVMSIM_INTERVALS").is_ok() {
        for r in sim.system_intervals() {
            println!("{r}");
        }
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::Value::Object(s)).unwrap()
    );
}
