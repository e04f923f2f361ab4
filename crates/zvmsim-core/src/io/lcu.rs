//! A logical control unit (LSS), identified by its subsystem ID: at most 256 devices, its
//! bases (volumes) and the aliases that reach them (static PAV: each bound to one base;
//! HyperPAV: any base of this LCU, and only of this LCU).

#[derive(Debug, Clone)]
pub struct Lcu {
    pub ssid: u16,
    /// Subchannel indices of the bases.
    pub bases: Vec<u32>,
    /// Subchannel indices of the aliases.
    pub aliases: Vec<u32>,
    pub hyperpav: bool,
}
