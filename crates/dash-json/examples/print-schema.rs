//! Prints one of the generated schemas (for inspection).
fn main() {
    for (name, s) in dash_json::schema::all() {
        println!("== {name}\n{}", dash_json::schema::render(&s));
    }
}
