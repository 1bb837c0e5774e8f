/// What a source's books are made of (`bookSourceType`).
public enum BookSourceType: Int, Sendable, Codable {
    case text = 0, audio = 1, image = 2, file = 3
}
