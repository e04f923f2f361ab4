//! The CMMA scenario of the large-memory study loads with its zipl parameter line and its
//! SET MEMASSIST console entry (not run here: ten guests take long).

use zvmsim_core::config::scenario;

#[test]
fn cmma_scenario_asks_for_cmma_on_every_guest() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/cmm/zvm53-10guests-cmma.toml"
    );
    let text = std::fs::read_to_string(path).expect("the CMMA scenario");
    let (sc, _) = scenario::parse(&text, path, &[]).expect("valid");
    assert!(!sc.guests.is_empty());
    for g in &sc.guests {
        assert!(g.linux.cmma(), "{}: {}", g.name, g.linux.parameters);
        assert!(g.linux.parameters.contains("root=/dev/dasda1"));
    }
    assert!(sc
        .console
        .iter()
        .any(|c| c.at.ns() == 0 && c.cp.as_deref() == Some("SET MEMASSIST ON ALL")));
    // The same scenario on z/VM 5.2: CP 5.2 has no MEMASSIST, and the script says so.
    let old = text.replacen("zvm_level = \"5.3\"", "zvm_level = \"5.2\"", 1);
    assert_ne!(old, text, "the scenario names its level");
    let err = scenario::parse(&old, path, &[])
        .err()
        .expect("refused at 5.2");
    assert_eq!(err.detail, "HCPCFC003E Invalid option - MEMASSIST");
}
