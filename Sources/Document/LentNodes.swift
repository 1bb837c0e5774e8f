import CLibXML2

/// Nodes of one document lent to a closure (`SimpleXPath.withNodes`): their values can be read there and only
/// there. The value cannot leave the closure (it is `~Copyable` and handed over `borrowing`), and the document
/// the nodes point into is alive for as long as the closure runs, so no raw libxml2 pointer outlives its tree.
package struct LentNodes: ~Copyable {
    /// Not counted: `SimpleXPath.withNodes`, the only maker, holds the document while this value lives, and
    /// the per-chapter reads (text and attribute values) do not need it at all.
    private let document: Unmanaged<HTMLDocument>
    private let pointers: UnsafeBufferPointer<xmlNodePtr>

    init(document: Unmanaged<HTMLDocument>, pointers: UnsafeBufferPointer<xmlNodePtr>) {
        self.document = document
        self.pointers = pointers
    }

    /// How many nodes there are.
    package var count: Int { pointers.count }

    /// `body` of the UTF-8 of node `index`'s value borrowed where libxml2 stores it (a text node, an attribute
    /// of one text child); nil, and `body` not run, for any other node (`appendValue` reads those).
    package func withStoredValue<T>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        HTMLNode.withStoredValue(of: pointers[index], body)
    }

    /// Appends the UTF-8 of node `index`'s value (what `HTMLNode.stringValue` gives) to `output`, copying text
    /// and attribute values straight from libxml2's storage (the per-chapter path of a TOC).
    package func appendValue(at index: Int, to output: inout [UInt8]) {
        let pointer = pointers[index]
        if HTMLNode.appendStoredValue(of: pointer, to: &output) { return }
        output.append(contentsOf: HTMLNode.stringValue(of: pointer, in: document.takeUnretainedValue()).utf8)
    }
}

/// Storage reused across the thousands of field-rule evaluations of a TOC page, so they allocate nothing: the
/// selected nodes (only read inside `SimpleXPath.withNodes`) and bytes for the closure to write values into.
package struct NodeScratch {
    var pointers: [xmlNodePtr] = []
    /// What the last `withNodes` closure wrote.
    package var bytes: [UInt8] = []

    /// Empty storage.
    package init() {}
}
