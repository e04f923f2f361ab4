//! Under CMMA, the pages a readahead window reads (Apache's and the application server's file
//! reads, `file_page_ra`) become volatile once their read completes, as any clean page-cache
//! page does; CP takes them without a page-out, and the next reference to one it took is a
//! discard fault that reads the window again.

use zvmsim_core::system::Simulation;

/// One Apache server in 256M serving a 600 MB file set from a minidisk, with its client; on
/// 192M of central storage with no expanded storage, so CP must take the server's frames.
fn scenario(cmma: bool) -> String {
    format!(
        r#"
[lpar]
ifls = 2
central = "192M"
zvm_level = "5.4"

[paging]
volumes = [{{ model = "3390-9", count = 2 }}]

[run]
priming = "10s"
measure = "20s"
interval = "10s"
seed = 1

[[guests]]
name = "WS01"
storage = "256M"
vcpus = 1
workload = "web"
dasd = [{{ use = "files", model = "3390-3", count = 1 }}]
linux = {{ kernel = "16M", parameters = "root=/dev/dasda1{parm}" }}

[[guests]]
name = "WC01"
storage = "64M"
vcpus = 1
workload = "client"
linux = {{ kernel = "16M" }}

[workloads.web]
kind = "apache"
users = 1
think_time = "0ms"

[workloads.web.apache]
role = "server"
docroot = "minidisk"
file_set = 600
files = 600
file_size = "1M"

[workloads.client]
kind = "apache"
think_time = "0ms"

[workloads.client.apache]
role = "client"
server = "web"
{console}"#,
        parm = if cmma { " cmma=on" } else { "" },
        console = if cmma {
            "\n[[console]]\nat = \"0s\"\ncp = \"SET MEMASSIST ON ALL\"\n"
        } else {
            ""
        },
    )
}

fn run(cmma: bool) -> serde_json::Map<String, serde_json::Value> {
    let mut sim = Simulation::from_toml(&scenario(cmma), "t.toml", None, &[]).expect("valid");
    sim.run();
    sim.check_invariants().expect("invariants");
    sim.summary()
}

fn n(s: &serde_json::Map<String, serde_json::Value>, k: &str) -> f64 {
    s[k].as_f64().unwrap_or_else(|| panic!("{k}"))
}

#[test]
fn readahead_pages_become_volatile_and_are_discarded() {
    let on = run(true);
    assert!(n(&on, "transactions") > 0.0);
    assert!(
        n(&on, "cmma_volatile_pages") > 1_000.0,
        "{}",
        on["cmma_volatile_pages"]
    );
    assert!(n(&on, "guest_discard_faults") > 0.0, "no discard fault");
    let off = run(false);
    assert_eq!(n(&off, "cmma_volatile_pages"), 0.0);
    assert_eq!(n(&off, "guest_discard_faults"), 0.0);
}
