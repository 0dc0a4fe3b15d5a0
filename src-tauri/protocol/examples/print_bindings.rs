//! Prints the generated TypeScript bindings (used while developing).
fn main() {
    print!("{}", gatehouse_protocol::typescript::bindings());
}
