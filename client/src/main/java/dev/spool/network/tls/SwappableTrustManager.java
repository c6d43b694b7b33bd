package dev.spool.network.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager whose CAs can be replaced while TLS contexts built on it stay in use: handshakes
 * after {@link #swap} check peers against the new truststore. Thread-safe (one volatile delegate).
 */
final class SwappableTrustManager extends X509ExtendedTrustManager {
  private volatile X509ExtendedTrustManager delegate;

  SwappableTrustManager(X509ExtendedTrustManager delegate) {
    this.delegate = delegate;
  }

  void swap(X509ExtendedTrustManager next) {
    this.delegate = next;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  /**
   * None: a server names no CAs in its certificate request, so a client presents its certificate
   * whichever CA signed it and the current truststore decides ({@link #checkClientTrusted}). The
   * list cannot follow a {@link #swap}: an OpenSSL server context (the listeners' default engine,
   * and the quorum's) reads it once, when it is built, so a CA added to the truststore later would
   * never be named, and a client whose key manager picks its certificate by the names (the JDK's,
   * Kafka's clients) would send none and be refused until a restart. Validation never uses this
   * list: the delegate checks chains against its own trust anchors.
   */
  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
