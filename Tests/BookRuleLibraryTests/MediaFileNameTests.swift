import Testing
@testable import BookRuleLibrary

@Suite("Download file names")
struct MediaFileNameTests {
    @Test("the last path segment, decoded and made safe; repeats numbered in order")
    func names() {
        #expect(MediaFileName.make(forURL: "https://h.example/a/b/cover.jpg?size=2#x") == "cover.jpg")
        #expect(MediaFileName.make(forURL: "https://h.example/audio/%E7%AC%AC1%E7%AB%A0.mp3") == "第1章.mp3")
        #expect(MediaFileName.make(forURL: "https://h.example/") == "download")
        #expect(MediaFileName.make(forURL: "https://h.example/x/..%2F..%2Fetc%2Fpasswd") .contains("/") == false)
        #expect(MediaFileName.uniqueNames(forURLs: [
            "http://a.example/1/page.png", "http://b.example/2/page.png", "http://c.example/Page.png", "http://d.example/x",
        ]) == ["page.png", "page-2.png", "Page-3.png", "x"])
    }
}
