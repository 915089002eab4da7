//! Prints one of the generated schemas (for inspection).
fn main() {
    for (name, s) in dashvertex_json::schema::all() {
        println!("== {name}\n{}", dashvertex_json::schema::render(&s));
    }
}
