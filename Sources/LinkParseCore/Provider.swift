/// An identity provider whose callbacks this module decodes.
public enum Provider: String, Sendable, Hashable, CaseIterable, Codable {
  case sber, vk, tid, apple, oauth2
}
