import CLibXML2

extension HTMLNode {
    /// A short CSS-like path to the node for people reading a report: `div#list > dl > dd:nth-child(3) > a`,
    /// with ` @href` for an attribute and ` text()` for a text node. It climbs to the nearest ancestor with an
    /// id (ids are what authors anchor rules on) or at most `depth` elements; `:nth-child(n)` (among element
    /// siblings, as CSS counts) marks an element that has siblings with the same tag, `.class` the first class
    /// of one that has no id.
    public func shortPath(depth: Int = 6) -> String {
        var suffix = ""
        var current: xmlNodePtr? = pointer
        switch kind {
        case .attribute:
            suffix = " @" + name
            current = pointer.pointee.parent
        case .text, .other:
            suffix = " text()"
            current = pointer.pointee.parent
        case .document:
            return "(the page)"
        case .element:
            break
        }
        var steps: [String] = []
        while let node = current, node.pointee.type == XML_ELEMENT_NODE, steps.count < depth {
            let tag = Self.name(of: node)
            if let id = Self.attribute("id", of: node), !id.isEmpty, !id.contains(" ") {
                steps.append("\(tag)#\(id)")
                break
            }
            var step = tag
            if let classes = Self.attribute("class", of: node)?.split(separator: " ").first {
                step += "." + classes
            }
            if let position = Self.sameTagPosition(of: node) { step += ":nth-child(\(position))" }
            steps.append(step)
            if tag == "body" { break }
            current = node.pointee.parent
        }
        return steps.reversed().joined(separator: " > ") + suffix
    }

    /// The node's position among its parent's element children (1-based), when a sibling shares its tag.
    private static func sameTagPosition(of node: xmlNodePtr) -> Int? {
        guard let parent = node.pointee.parent else { return nil }
        let tag = name(of: node)
        var position = 0
        var index = 0
        var sameTag = 0
        var child = parent.pointee.children
        while let item = child {
            if item.pointee.type == XML_ELEMENT_NODE {
                index += 1
                if item == node { position = index }
                if name(of: item) == tag { sameTag += 1 }
            }
            child = item.pointee.next
        }
        return sameTag > 1 ? position : nil
    }
}
