// Foundation's error protocols for the providers' errors. Kept out of LinkParseProviders, which does not
// depend on Foundation for them.

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import LinkParseProviders

/// `errorDescription` is `CallbackError.descriptionEN`, so `error.localizedDescription` reads as a sentence
/// (on Linux too, where an error without it gets "The operation could not be completed").
///
/// ```swift
/// do {
///   _ = try pending.validate(url)
/// } catch {
///   print(error.localizedDescription)  // "The callback's state does not match the pending authorization."
/// }
/// ```
extension CallbackError: LocalizedError {
  /// `CallbackError.descriptionEN`.
  public var errorDescription: String? { descriptionEN }
}
