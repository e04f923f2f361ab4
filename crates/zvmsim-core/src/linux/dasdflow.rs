//! The DASD driver's flow counters, in requests and bytes, at each step a request passes on
//! its way through one guest's block layer: handed to the block layer by a process (entered),
//! its channel program built by the driver (built), its SSCH issued to CP (started), its
//! interrupt handled (ended), its aio completion put in the process's ring (delivered).

use crate::io::Count;

use super::dasd::{DasdDriver, NONE};

#[derive(Debug, Clone, Copy, Default)]
pub struct DasdFlow {
    pub entered: Count,
    pub built: Count,
    pub started: Count,
    pub ended: Count,
    pub delivered: Count,
}

impl DasdDriver {
    /// The aio completion of a request of `pages` reached its process.
    pub fn delivered(&mut self, pages: u32) {
        self.flow.delivered.add(pages);
    }

    /// Conservation through the driver, `ending` being the requests that ended and whose
    /// completion has not reached its process yet (the block tasklet's pass is pending):
    /// entered = built + held by blk-mq; built = ended + on the devices;
    /// ended = delivered + `ending`; and ended <= started <= built.
    pub fn check_flow(&self, ending: Count) -> Result<(), String> {
        let f = &self.flow;
        let held = self.mq.held_count();
        let mut on_devs = Count::default();
        for d in &self.devs {
            let active = (d.active != NONE).then_some(d.active);
            for &q in d.queue.iter().chain(active.iter()) {
                on_devs.add(self.req(q).pages);
            }
        }
        let steps = [
            ("entered - held", f.entered.minus(held), f.built),
            ("built - on devices", f.built.minus(on_devs), f.ended),
            ("ended - ending", f.ended.minus(ending), f.delivered),
        ];
        for (what, left, right) in steps {
            if left != Some(right) {
                return Err(format!(
                    "DASD flow: {what} = {left:?}, next step {right:?}: {f:?}"
                ));
            }
        }
        if f.ended.reqs > f.started.reqs || f.started.reqs > f.built.reqs {
            return Err(format!(
                "DASD flow: more ended than started or built: {f:?}"
            ));
        }
        Ok(())
    }
}
