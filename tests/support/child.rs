//! Running one test of the current test binary in a child process, for
//! what must not happen in the parent: setting `TOKIWA_DRIVER`, installing
//! a seccomp filter before the process's first io_uring probe.
//!
//! The child test reads its case from an environment variable and prints
//! `child case <case>: ok` when every assertion held; without the variable
//! it returns at once, so the harness may also run it as an ordinary test.
use std::process::Command;

/// Runs `test` (an exact test name of this binary) in a child process with
/// `case_var=case` and the extra `env` (`None` removes a variable), and
/// panics with the child's output unless it reports the case done.
pub fn run_child_case(test: &str, case_var: &str, case: &str, env: &[(&str, Option<&str>)]) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(case_var, case);
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains(&format!("child case {case}: ok")),
        "{test} ({case}, env {env:?}): {}\n{stdout}\n{stderr}",
        out.status
    );
}
