/// Java's `String.trim()`: drops characters up to U+0020 at both ends.
func javaTrimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
          let last = scalars.lastIndex(where: { $0.value > 0x20 }) else { return "" }
    return String(scalars[first...last])
}
