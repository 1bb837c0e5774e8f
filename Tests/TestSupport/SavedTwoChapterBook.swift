import BookRuleEngine
import BookRuleLibrary
import Foundation
import Testing

/// A library at `folder` with one book of `http://127.0.0.9` whose two chapters are saved: what the export tests
/// convert or rewrite, in the library's tests and through the `bookrule` executable. `chapters` are the titles and
/// texts, in order.
package func savedTwoChapterBook(in folder: String, name: String, author: String, intro: String = "",
                                 chapters: [(title: String, text: String)]) throws -> (LibraryStore, StoredBook) {
    let store = try LibraryStore(path: folder + "/library.sqlite")
    let record = BookSourceRecord(sourceURL: "http://127.0.0.9", sourceName: "t", json: #"{"bookSourceUrl":"http://127.0.0.9"}"#)
    // Decoded, as BookInfo's memberwise initializer is internal and TestSupport has no `@testable` import.
    let fields: [String: Any] = [
        "url": "http://127.0.0.9/book/1/", "name": name, "author": author, "intro": intro, "kind": "", "lastChapter": "",
        "updateTime": "", "coverURL": "", "tocURL": "http://127.0.0.9/book/1/", "wordCount": "",
        "variables": [String: String](), "warnings": [String](),
    ]
    let info = try JSONDecoder().decode(BookInfo.self, from: JSONSerialization.data(withJSONObject: fields))
    let book = try store.upsertBook(source: record, info: info)
    let urls = chapters.indices.map { "http://127.0.0.9/book/1/\($0 + 1).html" }
    _ = try store.mergeTOC(bookID: book.id, chapters: chapters.enumerated().map { index, chapter in
        Chapter(index: index, title: chapter.title, url: urls[index])
    })
    for (index, chapter) in chapters.enumerated() {
        try store.saveChapter(bookID: book.id, url: urls[index], text: chapter.text)
    }
    return (store, try #require(try store.book(id: book.id)))
}
