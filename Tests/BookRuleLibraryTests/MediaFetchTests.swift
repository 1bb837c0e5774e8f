import Testing
@testable import BookRuleEngine
import TestSupport

extension DownloadTransfers {
    @Suite("bookrule fetch of audio and image sources: media files and the cover through the media downloader",
           .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
    struct MediaFetchTests {
        @Test("media links: data-src before src, relative URLs resolved, options dropped, plain URL lines, no repeats")
        func mediaLinks() {
            let urls = MediaLinks.urls(in: [
                "<p><img data-src='/a/1.jpg' src='lazy.gif'><img src=\"2.png,{'headers':{}}\"></p>",
                "https://cdn.example/track.mp3\nhttps://cdn.example/track.mp3\n  /audio/2.mp3 ",
                "<audio><source src='ftp://example/x.mp3'></audio>",
                "<img src='/c/3.webp,%7B%22headers%22%7D'>",
            ], baseURL: "https://site.example/book/1/c.html")
            #expect(urls == ["https://site.example/a/1.jpg", "https://site.example/book/1/2.png",
                             "https://cdn.example/track.mp3", "https://site.example/audio/2.mp3", "https://site.example/c/3.webp"])
        }
    }
}
