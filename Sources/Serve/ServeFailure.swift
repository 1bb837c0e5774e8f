/// Why one API call could not be done: the sentence Legado's envelope carries as `errorMsg`.
struct ServeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
