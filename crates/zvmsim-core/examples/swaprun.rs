#![allow(clippy::print_stdout, clippy::print_stderr)]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = &args[0];
    let text = std::fs::read_to_string(path).expect("read scenario");
    let t0 = std::time::Instant::now();
    let mut sim = match zvmsim_core::system::Simulation::from_toml(&text, path, None, &args[1..]) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    sim.run();
    for c in sim.console() {
        println!("{} {} {}", c["t_s"], c["user"], c["command"]);
        for l in c["response"].as_array().unwrap() {
            println!("    {}", l.as_str().unwrap());
        }
    }
    let s = sim.summary();
    for k in [
        "throughput_tx_per_s",
        "cpu_ms_per_tx",
        "cpu_cp_pct",
        "cpu_guests_pct",
        "response_ms",
        "guest_pgmajfault",
        "guest_pgscand",
        "guest_pswpin",
        "guest_pswpout",
        "wait_swap_in_ms_per_tx",
        "wait_page_fault_ms_per_tx",
    ] {
        if let Some(v) = s.get(k) {
            println!("{k} = {v}");
        }
    }

    println!("inv: {:?}", sim.check_invariants());
    println!(
        "wall_s = {:.1} events {}",
        t0.elapsed().as_secs_f64(),
        sim.events()
    );
}
