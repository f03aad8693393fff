/// LinkParse's version (semantic versioning): what `linkparse --version` prints and `CHANGELOG.md` lists.
///
/// ```swift
/// LinkParseVersion.string  // "0.1.0"
/// ```
public enum LinkParseVersion {
  /// The version, `major.minor.patch`.
  public static let string = "0.1.0"
}
