//! Integration tests: one test binary (one link), one module per area.
//! Each test starts what it needs: a real registry (`docker-registry`), a fake GitHub.

// A test crate has no public face: `pub` here means "shared between test modules".
#![allow(unreachable_pub)]

mod action;
mod architecture;
mod budgets;
mod chart;
mod common;
mod container;
mod deployments;
mod e2e;
mod hostile;
mod hub;
mod kube;
mod kube_access;
mod manual;
mod openapi;
mod publish;
mod pull_policy;
mod registry;
mod runbook;
mod status;
mod status_stdout;
mod templates;
mod tier_triggers;
mod window_docs;
