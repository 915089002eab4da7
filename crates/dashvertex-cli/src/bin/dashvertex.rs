//! `dashvertex`: validate, convert, inspect, reduce and manage bone manifests.

fn main() -> std::process::ExitCode {
    dashvertex_cli::dash::main()
}
