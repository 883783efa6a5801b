fn main() {
    skiff::start();
}
