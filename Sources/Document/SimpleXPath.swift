import CLibXML2

/// A fast evaluator for the simple XPaths that make up most field rules (`//a/@href`, `/text()`,
/// `//span/a/text()`), walking libxml2's tree directly.
///
/// A TOC of 5,000 chapters runs two field rules per chapter; libxml2's general evaluator spends more time
/// setting up each evaluation than walking the few nodes involved. Results are exactly what libxml2 gives for
/// the context-relative form of the same path (see `XPathRewriter`); anything outside the simple grammar is
/// not compiled here, and a case whose document order would need sorting answers nil so the caller falls
/// back to libxml2.
///
/// Grammar: `('//' | '/')? step ('/' step)*`, where a step is a name or `*`, and the last step may also be
/// `@name` or `text()`. A leading `//` selects the context itself and its descendants; otherwise steps select
/// children. No predicates, functions, unions or other axes.
package struct SimpleXPath: Sendable {
    /// A step names what it matches by the offset of a NUL-terminated name in `names`, so that walking the
    /// tree (thousands of times per TOC page) copies no reference-counted value.
    fileprivate enum Step: Sendable, Equatable {
        case element(Int?)  // nil = any element
        case attribute(Int)
        case text
    }

    private let descendantFirst: Bool
    private let steps: [Step]
    /// Every step's name, each followed by a 0 byte.
    private let names: [UInt8]

    /// Compiles `expression`, or returns nil when it is not in the simple grammar.
    package init?(_ expression: String) {
        var text = Substring(expression.trimmingASCIIWhitespace())
        if text.hasPrefix("//") {
            descendantFirst = true
            text = text.dropFirst(2)
        } else {
            descendantFirst = false
            if text.hasPrefix("/") { text = text.dropFirst() }
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        var steps: [Step] = []
        var names: [UInt8] = []
        func name(_ text: Substring) -> Int {
            defer { names.append(contentsOf: text.utf8); names.append(0) }
            return names.count
        }
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            if part == "*" {
                steps.append(.element(nil))
            } else if part == "text()", isLast, index > 0 || !descendantFirst {
                steps.append(.text)
            } else if part.hasPrefix("@"), isLast, index > 0 || !descendantFirst, Self.isName(part.dropFirst()) {
                steps.append(.attribute(name(part.dropFirst())))
            } else if Self.isName(part) {
                steps.append(.element(name(part)))
            } else {
                return nil
            }
        }
        self.steps = steps
        self.names = names
    }

    /// The selected nodes in document order, or nil when only libxml2 can order them correctly.
    package func evaluate(at context: HTMLNode) -> [HTMLNode]? {
        evaluatePointers(at: context.pointer)?.map { HTMLNode(document: context.document, pointer: $0) }
    }

    /// The string `body` makes (or not) of the nodes selected at `context`, in document order (selected into
    /// `scratch`, whose storage is reused, and with `scratch.bytes` to write into); nil, and `body` not run,
    /// when only libxml2 can order them correctly. The nodes cannot leave `body`, so no pointer outlives their
    /// document. Not generic: across modules a generic one ran unspecialised, looking up metadata per call.
    package func withNodes(at context: HTMLNode, scratch: inout NodeScratch,
                           _ body: (borrowing LentNodes, inout [UInt8]) -> String?) -> String?? {
        guard evaluatePointers(at: context.pointer, into: &scratch.pointers) else { return nil }
        // `context` holds the document until this returns, so the nodes are lent without counting it.
        let document = Unmanaged.passUnretained(context.document)
        return scratch.pointers.withUnsafeBufferPointer { pointers in
            body(LentNodes(document: document, pointers: pointers), &scratch.bytes)
        }
    }

    /// The `stringValue` of each selected node, in document order, or nil when only libxml2 can order the
    /// nodes correctly.
    package func stringValues(at context: HTMLNode) -> [String]? {
        evaluatePointers(at: context.pointer)?.map { HTMLNode.stringValue(of: $0, in: context.document) }
    }

    /// The selected nodes as libxml2 pointers (valid while the context's document lives), in document order,
    /// or nil when only libxml2 can order them correctly.
    func evaluatePointers(at context: xmlNodePtr) -> [xmlNodePtr]? {
        var result: [xmlNodePtr] = []
        return evaluatePointers(at: context, into: &result) ? result : nil
    }

    /// `evaluatePointers(at:)` into `result` (emptied first, its storage reused: the per-chapter path calls
    /// this thousands of times); false when only libxml2 can order the nodes correctly.
    func evaluatePointers(at context: xmlNodePtr, into result: inout [xmlNodePtr]) -> Bool {
        result.removeAll(keepingCapacity: true)
        return steps.withUnsafeBufferPointer { steps in
            names.withUnsafeBufferPointer { names in
                let walk = Walk(steps: steps, names: names)
                if descendantFirst {
                    var nested = false
                    walk.collectDescendantsOrSelf(of: context, nested: &nested, into: &result)
                    // Matches inside matches would interleave in document order after further steps.
                    if nested && steps.count > 1 { return false }
                } else {
                    walk.visit(context, step: 0, into: &result)
                }
                return true
            }
        }
    }

    private static func isName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z") else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
    }
}

/// One evaluation's view of a `SimpleXPath`: its steps and names as buffers, borrowed for the walk.
private struct Walk {
    let steps: UnsafeBufferPointer<SimpleXPath.Step>
    let names: UnsafeBufferPointer<UInt8>

    /// Depth-first over the steps: the subtrees of distinct non-nested nodes are disjoint and ordered, so this
    /// yields document order without sorting.
    func visit(_ node: xmlNodePtr, step: Int, into result: inout [xmlNodePtr]) {
        if step == steps.count {
            result.append(node)
            return
        }
        switch steps[step] {
        case .element(let name):
            var child = node.pointee.children
            while let item = child {
                if item.pointee.type == XML_ELEMENT_NODE, matches(item, name) { visit(item, step: step + 1, into: &result) }
                child = item.pointee.next
            }
        case .attribute(let name):
            guard node.pointee.type == XML_ELEMENT_NODE else { return }
            var attribute = node.pointee.properties
            while let item = attribute {
                let asNode = UnsafeMutableRawPointer(item).assumingMemoryBound(to: xmlNode.self)
                if matches(asNode, name) { result.append(asNode) }
                attribute = item.pointee.next
            }
        case .text:
            var child = node.pointee.children
            while let item = child {
                if item.pointee.type == XML_TEXT_NODE || item.pointee.type == XML_CDATA_SECTION_NODE { result.append(item) }
                child = item.pointee.next
            }
        }
    }

    /// `//name…` from `start`: every element (start included) named like the first step, in document order,
    /// each followed by the rest of the path from it. Iterative (libxml2's parent and sibling links, and a
    /// stack of one flag per level), so a page nested thousands of levels deep costs no call stack. `nested`
    /// is set when a match lies inside another match.
    func collectDescendantsOrSelf(of start: xmlNodePtr, nested: inout Bool, into result: inout [xmlNodePtr]) {
        // For each element on the path from `start` down to the current node's parent: whether it matched.
        var matchedOnPath: [Bool] = []
        // The first step of a `//` path is an element step (`SimpleXPath.init`).
        let firstName: Int? = if case .element(let name) = steps[0] { name } else { nil }
        var matchesOnPath = 0
        var node = start
        while true {
            var isMatch = false
            if node.pointee.type == XML_ELEMENT_NODE, matches(node, firstName) {
                if matchesOnPath > 0 { nested = true }
                isMatch = true
                visit(node, step: 1, into: &result)
            }
            if let child = Self.elementSibling(from: node.pointee.children) {
                matchedOnPath.append(isMatch)
                if isMatch { matchesOnPath += 1 }
                node = child
                continue
            }
            // No element below: the next element sibling, else climb until an ancestor has one.
            var current = node
            while true {
                if current == start { return }
                if let sibling = Self.elementSibling(from: current.pointee.next) {
                    node = sibling
                    break
                }
                guard let parent = current.pointee.parent, let parentMatched = matchedOnPath.popLast() else { return }
                if parentMatched { matchesOnPath -= 1 }
                current = parent
            }
        }
    }

    /// The first element node from `node` along its siblings (`node` included).
    private static func elementSibling(from node: xmlNodePtr?) -> xmlNodePtr? {
        var item = node
        while let candidate = item, candidate.pointee.type != XML_ELEMENT_NODE { item = candidate.pointee.next }
        return item
    }

    /// Whether `node`'s name is the one at offset `name` of `names` (any name when nil).
    private func matches(_ node: xmlNodePtr, _ name: Int?) -> Bool {
        guard let name else { return true }
        guard var pointer = node.pointee.name else { return false }
        var index = name
        while names[index] != 0 {
            if pointer.pointee != names[index] { return false }
            pointer += 1
            index += 1
        }
        return pointer.pointee == 0
    }
}
