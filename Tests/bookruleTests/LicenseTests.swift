import Foundation
import Testing

@Suite("The licence")
struct LicenseTests {
    @Test("the repository carries the MIT licence and the README names it")
    func licenseIsPresentAndNamed() throws {
        let license = try String(contentsOfFile: repositoryRoot + "/LICENSE", encoding: .utf8)
        #expect(license.hasPrefix("MIT License"))
        #expect(license.contains("Permission is hereby granted, free of charge"))
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        #expect(readme.contains("## License\n\nMIT (see [LICENSE](LICENSE))"))
    }
}
