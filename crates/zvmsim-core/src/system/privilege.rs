//! The CP privilege classes of the users in the running system: who may type what
//! (`cp/privclass.rs` has the commands' classes), and SET PRIVCLASS.

use std::collections::HashMap;

use crate::config::scenario::Scenario;
use crate::cp::directory::{parse_directory, DirStatement};

use super::Simulation;

#[derive(Debug, Default)]
pub(super) struct Privileges {
    /// As SET PRIVCLASS last left them, by user.
    set: HashMap<String, String>,
    /// Each guest's directory CLASS statement, by guest index (read once, at build).
    directory: Vec<Option<String>>,
}

impl Privileges {
    pub(super) fn new(sc: &Scenario) -> Self {
        let directory =
            sc.guest_instances()
                .iter()
                .map(|i| {
                    sc.guests[i.spec_index].directory.iter().find_map(|l| {
                        match parse_directory(l) {
                            Ok(DirStatement::Class(c)) => Some(c),
                            _ => None,
                        }
                    })
                })
                .collect();
        Privileges {
            set: HashMap::new(),
            directory,
        }
    }
}

impl Simulation {
    /// The privilege classes of `user`: as SET PRIVCLASS last left them; else a guest's
    /// directory CLASS statement; else A to G for MAINT and OPERATOR (as IBM's sample
    /// directory gives them) and class G for everyone else.
    pub(super) fn classes(&self, user: &str) -> String {
        if let Some(c) = self.privileges.set.get(user) {
            return c.clone();
        }
        let guest = self.m.guests.iter().position(|g| g.name == user);
        if let Some(c) = guest.and_then(|g| self.privileges.directory[g].clone()) {
            return c;
        }
        match user {
            "MAINT" | "OPERATOR" => "ABCDEFG".into(),
            _ => "G".into(),
        }
    }

    /// CP's answer to `cmd` typed by `user` if their privilege classes do not allow it.
    pub(super) fn cp_refusal(&self, user: &str, cmd: &str) -> Option<String> {
        let level = Some(self.scenario.lpar.zvm_level.as_str());
        crate::cp::privclass::refusal(cmd, level, &self.classes(user))
    }

    /// `SET PRIVCLASS user [+|-]classes`: `op` '+' adds, '-' removes, '=' replaces.
    pub(super) fn set_privclass(&mut self, user: String, op: char, classes: String) -> Vec<String> {
        let on = self.m.guests.iter().any(|g| g.name == user)
            || self
                .scenario
                .console
                .iter()
                .any(|c| c.user.eq_ignore_ascii_case(&user));
        if !on {
            return vec![format!("HCP045E {user} not logged on")];
        }
        let mut have = self.classes(&user);
        match op {
            '+' => {
                let add: String = classes.chars().filter(|c| !have.contains(*c)).collect();
                have.push_str(&add);
            }
            '-' => have.retain(|c| !classes.contains(c)),
            _ => have = classes,
        }
        self.privileges.set.insert(user, have);
        vec![]
    }
}
