//! The integration tests of `bandmap-bandmap`, one test binary: each former
//! `tests/*.rs` file is a module, the shared helpers are `deploy_support`, `fault_support`.

mod backup_restore;
mod cli;
mod deploy_files;
mod deploy_support;
mod fault_kill;
mod fault_replicas;
mod fault_restart;
mod fault_secrets;
mod fault_support;
mod lifecycle_literals;
mod metrics_listener;
mod source_tree;
mod sql_writes;
