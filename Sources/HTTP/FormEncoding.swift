/// Text as an HTML form (`application/x-www-form-urlencoded`) or a query carries it: letters, digits and
/// `-_.*` as they are, a space as `+` (or `%20`), every other UTF-8 byte `%XX`.
package enum FormEncoding {
    /// `text` encoded; `spaceAsPlus` false writes a space as `%20`.
    package static func encode(_ text: String, spaceAsPlus: Bool = true) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "*"):
                output.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                output.append(UInt8(ascii: "+"))
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
