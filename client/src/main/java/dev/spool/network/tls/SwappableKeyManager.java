package dev.spool.network.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager whose material can be replaced while TLS contexts built on it stay in use: every
 * handshake asks the current delegate, so connections made after {@link #swap} present the new
 * certificate and those already established keep their session. Thread-safe (one volatile delegate;
 * a handshake reads it once per call, and the JDK asks for an alias, then the chain and key of that
 * alias, which a swap in between can only make fail that one handshake).
 */
final class SwappableKeyManager extends X509ExtendedKeyManager {
  private volatile X509ExtendedKeyManager delegate;

  SwappableKeyManager(X509ExtendedKeyManager delegate) {
    this.delegate = delegate;
  }

  void swap(X509ExtendedKeyManager next) {
    this.delegate = next;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return delegate.getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return delegate.chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return delegate.getServerAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return delegate.chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    return delegate.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    return delegate.getPrivateKey(alias);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return delegate.chooseEngineClientAlias(keyType, issuers, engine);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return delegate.chooseEngineServerAlias(keyType, issuers, engine);
  }
}
