/// Undeclared pages (no Content-Type charset, no <meta> charset) in four CJK charsets, generated with Python's
/// codecs from the title and paragraph in each comment, so the tests need no iconv at run time.
enum UndeclaredPages {
    /// shift_jis: 吾輩は猫である / 吾輩は猫である。名前はまだ無い。… (534 bytes)
    static let shiftJIS = bytes(
        "3c21444f43545950452068746d6c3e3c68746d6c3e3c686561643e3c7469746c653e8ce1947982cd944c82c582a082e93c2f7469746c653e" +
        "3c7363726970743e76617220626f6f6b4964203d203130313b3c2f7363726970743e3c2f686561643e3c626f64793e3c64697620636c6173" +
        "733d226e6176223e3c6120687265663d222f223e686f6d653c2f613e202667743b203c6120687265663d222f626f6f6b2f3130312f223e69" +
        "6e6465783c2f613e3c2f6469763e3c68313e8ce1947982cd944c82c582a082e93c2f68313e3c6469762069643d22636f6e74656e74223e3c" +
        "703e8ce1947982cd944c82c582a082e9814296bc914f82cd82dc82be96b382a2814282c782b182c590b682ea82bd82a982c682f182c68ca9" +
        "939682aa82c282a982ca814289bd82c582e0949688c382a282b682df82b682df82b582bd8f8a82c5836a8383815b836a8383815b8b8382a2" +
        "82c482a282bd8e9682be82af82cd8b4c89af82b582c482a282e981428ce1947982cd82b182b182c58e6e82df82c4906c8ad482c682a282a4" +
        "82e082cc82f08ca982bd814282b582a982e082a082c682c595b782ad82c682bb82ea82cd8f9190b682c682a282a4906c8ad4928682c588ea" +
        "94d4e0d688ab82c88eed91b082c582a082c182bd82bb82a482be81423c2f703e3c2f6469763e3c64697620636c6173733d22666f6f746572" +
        "223e28632920323032343c2f6469763e3c2f626f64793e3c2f68746d6c3e")
    static let shiftJISTitle = "吾輩は猫である"
    static let shiftJISText = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。しかもあとで聞くとそれは書生という人間中で一番獰悪な種族であったそうだ。"

    /// euc_kr: 제1장 운수 좋은 날 / 새침하게 흐린 품이 눈이 올 … (665 bytes)
    static let eucKR = bytes(
        "3c21444f43545950452068746d6c3e3c68746d6c3e3c686561643e3c7469746c653ec1a631c0e520bfeebcf620c1c1c0ba20b3af3c2f7469" +
        "746c653e3c7363726970743e76617220626f6f6b4964203d203130313b3c2f7363726970743e3c2f686561643e3c626f64793e3c64697620" +
        "636c6173733d226e6176223e3c6120687265663d222f223e686f6d653c2f613e202667743b203c6120687265663d222f626f6f6b2f313031" +
        "2f223e696e6465783c2f613e3c2f6469763e3c68313ec1a631c0e520bfeebcf620c1c1c0ba20b3af3c2f68313e3c6469762069643d22636f" +
        "6e74656e74223e3c703ebbf5c4a7c7cfb0d420c8e5b8b020c7b0c0cc20b4abc0cc20bfc320b5edc7cfb4f5b4cf20b4abc0ba20bec6b4cf20" +
        "bfc0b0ed20bef3b4d9b0a120b8b820baf1b0a120c3dfc0fbc3dfc0fb20b3bbb8aeb4c220b3afc0ccbefab4d92e20c0ccb3afc0ccbedfb8bb" +
        "b7ce20b5bfbcd2b9ae20bec8bfa1bcad20c0ceb7c2b0c5b2db20b3ebb8a9c0bb20c7cfb4c220b1e8c3b7c1f6bfa1b0d4b4c220bfc0b7a1b0" +
        "a3b8b8bfa1b5b520b4dac4a320bfeebcf620c1c1c0ba20b3afc0ccbefab4d92e20b9aebec8bfa120b5e9beeeb0a3b4e4bdc3b0ed20bed5c1" +
        "fd20b8b6b3aab4d4c0bb20c0fcc2feb1e6b1eec1f620b8f0bcc5b4d920b5e5b8b020b0cdc0bb20baf1b7d4c0b8b7ce20c7e0bfa9b3aa20bc" +
        "d5b4d4c0cc20c0d6c0bbb1ee20c7cfb0ed20c1a4b7f9c0e5bfa1bcad20beeec1a4beeec1a4c7cfb8e720b3bbb8aeb4c220bbe7b6f720c7cf" +
        "b3aac7cfb3aabfa1b0d420b0c5c0c720baf1b4c220b5edc7d120b4abb0e1c0bb20bab8b3bbb0ed20c0d6befab4d92e3c2f703e3c2f646976" +
        "3e3c64697620636c6173733d22666f6f746572223e28632920323032343c2f6469763e3c2f626f64793e3c2f68746d6c3e")
    static let eucKRTitle = "제1장 운수 좋은 날"
    static let eucKRText = "새침하게 흐린 품이 눈이 올 듯하더니 눈은 아니 오고 얼다가 만 비가 추적추적 내리는 날이었다. 이날이야말로 동소문 안에서 인력거꾼 노릇을 하는 김첨지에게는 오래간만에도 닥친 운수 좋은 날이었다. 문안에 들어간답시고 앞집 마나님을 전찻길까지 모셔다 드린 것을 비롯으로 행여나 손님이 있을까 하고 정류장에서 어정어정하며 내리는 사람 하나하나에게 거의 비는 듯한 눈결을 보내고 있었다."

    /// big5: 第一回 宴桃園豪傑三結義 / 話說天下大勢，分久必合，合久必分… (522 bytes)
    static let big5 = bytes(
        "3c21444f43545950452068746d6c3e3c68746d6c3e3c686561643e3c7469746c653eb2c4a440a65e20ae62aee7b6e9bba8b3c7a454b5b2b8" +
        "713c2f7469746c653e3c7363726970743e76617220626f6f6b4964203d203130313b3c2f7363726970743e3c2f686561643e3c626f64793e" +
        "3c64697620636c6173733d226e6176223e3c6120687265663d222f223e686f6d653c2f613e202667743b203c6120687265663d222f626f6f" +
        "6b2f3130312f223e696e6465783c2f613e3c2f6469763e3c68313eb2c4a440a65e20ae62aee7b6e9bba8b3c7a454b5b2b8713c2f68313e3c" +
        "6469762069643d22636f6e74656e74223e3c703eb8dcbba1a4d1a455a46ab6d5a141a4c0a45ba5b2a658a141a658a45ba5b2a4c0a143a950" +
        "a5bda443b0eaa4c0aaa7a141a8c3a44aa9f3afb3a143a4ceafb3b7c0a4a7abe1a141b7a1a142ba7ea4c0aaa7a141a453a8c3a44aa9f3ba7e" +
        "a143ba7eb4c2a6dbb0aaafaab1d9a5d5b344a6d3b05fb871a141a440b2cea4d1a455a141abe1a8d3a5faaa5aa4a4bfb3a141b6c7a6dcc46d" +
        "abd2a141b945a4c0acb0a454b0eaa143b1c0a8e4ad50b6c3a4a7a5d1a141ac70a96ca9f3aed9a142c646a447abd2a143aed9abd2b854c044" +
        "b5bdc3fea141b152ab48abc6a978a1433c2f703e3c2f6469763e3c64697620636c6173733d22666f6f746572223e28632920323032343c2f" +
        "6469763e3c2f626f64793e3c2f68746d6c3e")
    static let big5Title = "第一回 宴桃園豪傑三結義"
    static let big5Text = "話說天下大勢，分久必合，合久必分。周末七國分爭，並入於秦。及秦滅之後，楚、漢分爭，又並入於漢。漢朝自高祖斬白蛇而起義，一統天下，後來光武中興，傳至獻帝，遂分為三國。推其致亂之由，殆始於桓、靈二帝。桓帝禁錮善類，崇信宦官。"

    /// gbk: 第一回 宴桃园豪杰三结义 / 话说天下大势，分久必合，合久必分… (522 bytes)
    static let gbk = bytes(
        "3c21444f43545950452068746d6c3e3c68746d6c3e3c686561643e3c7469746c653eb5dad2bbbbd820d1e7ccd2d4b0bac0bddcc8fdbde1d2" +
        "e53c2f7469746c653e3c7363726970743e76617220626f6f6b4964203d203130313b3c2f7363726970743e3c2f686561643e3c626f64793e" +
        "3c64697620636c6173733d226e6176223e3c6120687265663d222f223e686f6d653c2f613e202667743b203c6120687265663d222f626f6f" +
        "6b2f3130312f223e696e6465783c2f613e3c2f6469763e3c68313eb5dad2bbbbd820d1e7ccd2d4b0bac0bddcc8fdbde1d2e53c2f68313e3c" +
        "6469762069643d22636f6e74656e74223e3c703ebbb0cbb5cceccfc2b4f3cac6a3acb7d6bec3b1d8bacfa3acbacfbec3b1d8b7d6a1a3d6dc" +
        "c4a9c6dfb9fab7d6d5f9a3acb2a2c8ebd3dac7d8a1a3bcb0c7d8c3f0d6aebaf3a3acb3fea1a2babab7d6d5f9a3acd3d6b2a2c8ebd3dababa" +
        "a1a3babab3afd7d4b8dfd7e6d5b6b0d7c9dfb6f8c6f0d2e5a3acd2bbcdb3cceccfc2a3acbaf3c0b4b9e2cee4d6d0d0cba3acb4abd6c1cfd7" +
        "b5dba3accbecb7d6ceaac8fdb9faa1a3cdc6c6e4d6c2c2d2d6aed3c9a3acb4f9cabcd3dabbb8a1a2c1e9b6feb5dba1a3bbb8b5dbbdfbefc0" +
        "c9c6c0e0a3acb3e7d0c5bbc2b9d9a1a33c2f703e3c2f6469763e3c64697620636c6173733d22666f6f746572223e28632920323032343c2f" +
        "6469763e3c2f626f64793e3c2f68746d6c3e")
    static let gbkTitle = "第一回 宴桃园豪杰三结义"
    static let gbkText = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。及秦灭之后，楚、汉分争，又并入于汉。汉朝自高祖斩白蛇而起义，一统天下，后来光武中兴，传至献帝，遂分为三国。推其致乱之由，殆始于桓、灵二帝。桓帝禁锢善类，崇信宦官。"

    /// Decodes a fixture's hex text.
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var high: UInt8?
        for character in hex.utf8 {
            let value: UInt8 = character <= 57 ? character - 48 : character - 87
            if let first = high {
                result.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return result
    }
}
