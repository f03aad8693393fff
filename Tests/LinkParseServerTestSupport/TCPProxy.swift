// A TCP relay on 127.0.0.1 in front of a server (PostgreSQL in the tests), that a test can take down and bring
// back on the same port: "the database goes away mid-run" without stopping the shared server.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Relays every connection on `127.0.0.1:port` to `target`. ``stop()`` closes the listener and every relayed
/// connection; ``start()`` listens again on the same port.
///
/// ```swift
/// let proxy = try await TCPProxy(targetPort: 55432)
/// await proxy.stop()      // clients see their connections close, new ones refused
/// try await proxy.start() // back
/// ```
public final class TCPProxy: Sendable {
  /// The port the proxy listens on (chosen on first start).
  public let port: Int
  private let target: SocketAddress
  private let state = NIOLockedValueBox<(server: Channel?, connections: [Channel])>((nil, []))

  /// Starts a proxy to `127.0.0.1:targetPort` on a free port.
  public init(targetPort: Int) async throws {
    target = try SocketAddress(ipAddress: "127.0.0.1", port: targetPort)
    let server = try await Self.bind(port: 0, target: target, state: state)
    port = server.localAddress?.port ?? 0
  }

  /// Listens again (after ``stop()``) on ``port``.
  public func start() async throws {
    _ = try await Self.bind(port: port, target: target, state: state)
  }

  /// Closes the listener and every relayed connection.
  public func stop() async {
    let (server, connections) = state.withLockedValue { s in
      defer { s = (nil, []) }
      return s
    }
    try? await server?.close()
    for c in connections { try? await c.close() }
  }

  private static func bind(
    port: Int, target: SocketAddress, state: NIOLockedValueBox<(server: Channel?, connections: [Channel])>
  ) async throws -> Channel {
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { inbound in
        ClientBootstrap(group: inbound.eventLoop).connect(to: target).flatMap { outbound in
          state.withLockedValue { $0.connections += [inbound, outbound] }
          return inbound.pipeline.addHandler(Relay(peer: outbound)).flatMap {
            outbound.pipeline.addHandler(Relay(peer: inbound))
          }
        }
      }
      .bind(host: "127.0.0.1", port: port).get()
    state.withLockedValue { $0.server = server }
    return server
  }
}

/// Writes what one side reads to the other; closing either side closes both.
private final class Relay: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  let peer: Channel

  init(peer: Channel) { self.peer = peer }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    peer.writeAndFlush(data, promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    peer.close(promise: nil)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
