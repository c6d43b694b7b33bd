package dev.spool.broker.network;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Epoll when the native transport loads (Linux), NIO otherwise. */
final class Transport {
  private Transport() {}

  static boolean epoll() {
    return Epoll.isAvailable();
  }

  static EventLoopGroup group(int threads, String name) {
    IoHandlerFactory factory = epoll() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), factory);
  }

  static Class<? extends ServerChannel> serverChannel() {
    return epoll() ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  static String name() {
    return epoll() ? "epoll" : "nio (" + Epoll.unavailabilityCause() + ")";
  }
}
