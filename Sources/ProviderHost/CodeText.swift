/// Swift source with its comments and string literals' contents blanked (newlines kept), so a
/// scan for declarations finds code only and its line numbers stay those of the file.
enum CodeText {
    static func blankingCommentsAndStrings(_ text: String) -> String {
        let chars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        out.reserveCapacity(chars.count)
        var i = 0
        func blank(_ c: Unicode.Scalar) { out.append(c == "\n" ? "\n" : " ") }
        func at(_ offset: Int) -> Unicode.Scalar? { i + offset < chars.count ? chars[i + offset] : nil }
        while i < chars.count {
            let c = chars[i]
            if c == "/", at(1) == "/" {
                while i < chars.count, chars[i] != "\n" {
                    blank(chars[i])
                    i += 1
                }
            } else if c == "/", at(1) == "*" {
                // Swift's block comments nest.
                var depth = 0
                repeat {
                    if chars[i] == "/", at(1) == "*" {
                        depth += 1
                        blank("/")
                        blank("*")
                        i += 2
                        continue
                    }
                    if chars[i] == "*", at(1) == "/" {
                        depth -= 1
                        blank("*")
                        blank("/")
                        i += 2
                        continue
                    }
                    blank(chars[i])
                    i += 1
                } while i < chars.count && depth > 0
            } else if c == "\"" || (c == "#" && at(1) == "\"") {
                // A literal: its quotes stay, its contents go. Raw strings' hashes say how it ends.
                var hashes = 0
                while i < chars.count, chars[i] == "#" {
                    hashes += 1
                    out.append("#")
                    i += 1
                }
                let triple = at(0) == "\"" && at(1) == "\"" && at(2) == "\""
                let quotes = triple ? 3 : 1
                for _ in 0..<quotes where i < chars.count {
                    out.append("\"")
                    i += 1
                }
                while i < chars.count {
                    if chars[i] == "\\", hashes == 0, i + 1 < chars.count {
                        blank(chars[i])
                        blank(chars[i + 1])
                        i += 2
                        continue
                    }
                    if !triple, chars[i] == "\n" { break }
                    var closes = true
                    for k in 0..<quotes where at(k) != "\"" { closes = false }
                    for k in 0..<hashes where at(quotes + k) != "#" { closes = false }
                    if closes {
                        for _ in 0..<(quotes + hashes) {
                            out.append(chars[i])
                            i += 1
                        }
                        break
                    }
                    blank(chars[i])
                    i += 1
                }
            } else {
                out.append(c)
                i += 1
            }
        }
        return String(out)
    }
}
