//! Integration tests: one test binary (one link), one module per area.
//! Each test starts what it needs: a real registry (`docker-registry`), a fake GitHub.

mod action;
mod architecture;
mod budgets;
mod common;
mod container;
mod e2e;
mod hostile;
mod hub;
mod kube;
mod publish;
mod registry;
mod status;
mod status_stdout;
mod templates;
mod tier_triggers;
mod window_docs;
