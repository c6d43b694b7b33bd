package dev.spool.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The client side of SCRAM against RFC 7677's test vector (SCRAM-SHA-256, user "user", password
 * "pencil"), and what it refuses of a server: a nonce that does not extend its own, an iteration
 * count out of bounds, a malformed or mandatory-extension server-first, a wrong or error
 * server-final.
 */
@Tag("unit")
class ScramClientTest {
  private static final String CNONCE = "rOprNGfwEbeRWgbNEkqO";
  private static final String SERVER_FIRST =
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
  private static final String CLIENT_FINAL =
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
          + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
  private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  private static ScramClient rfc() {
    return new ScramClient(ScramMechanism.SCRAM_SHA_256, "user", "pencil", CNONCE);
  }

  @Test
  void shouldProduceRfc7677sMessagesAndAcceptItsServerSignature() {
    ScramClient c = rfc();
    assertEquals("n,,n=user,r=" + CNONCE, text(c.clientFirst()));
    assertEquals(CLIENT_FINAL, text(c.clientFinal(bytes(SERVER_FIRST))));
    assertFalse(c.isComplete());
    c.serverFinal(bytes(SERVER_FINAL));
    assertTrue(c.isComplete());
  }

  @Test
  void shouldRefuseAServerSignatureThatDoesNotMatch() {
    ScramClient c = rfc();
    c.clientFirst();
    c.clientFinal(bytes(SERVER_FIRST));
    SpoolException e =
        assertThrows(
            SpoolException.class,
            () -> c.serverFinal(bytes("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")));
    assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED, e.errorCode());
    assertTrue(e.getMessage().contains("server signature does not match"), e.getMessage());
    assertFalse(e.retriable());
    assertFalse(c.isComplete());
  }

  @Test
  void shouldRefuseAServerNonceThatDoesNotExtendTheClients() {
    for (String nonce : new String[] {"XOprNGfwEbeRWgbNEkqOabc", CNONCE, "abc"}) {
      ScramClient c = rfc();
      c.clientFirst();
      SpoolException e =
          assertThrows(
              SpoolException.class,
              () -> c.clientFinal(bytes("r=" + nonce + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")));
      assertTrue(e.getMessage().contains("nonce"), e.getMessage());
    }
  }

  @Test
  void shouldRefuseIterationCountsOutOfBoundsAndMalformedServerFirsts() {
    String[] bad = {
      "r=" + CNONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1",
      "r=" + CNONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=100000",
      "r=" + CNONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=many",
      "r=" + CNONCE + "x,s=%%%,i=4096",
      "r=" + CNONCE + "x,s=,i=4096",
      "m=ext,r=" + CNONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
      "garbage",
      ""
    };
    for (String serverFirst : bad) {
      ScramClient c = rfc();
      c.clientFirst();
      SpoolException e =
          assertThrows(SpoolException.class, () -> c.clientFinal(bytes(serverFirst)), serverFirst);
      assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED, e.errorCode(), serverFirst);
    }
  }

  @Test
  void shouldReportAServerErrorAndEscapeUserNames() {
    ScramClient c = rfc();
    c.clientFirst();
    c.clientFinal(bytes(SERVER_FIRST));
    SpoolException e =
        assertThrows(SpoolException.class, () -> c.serverFinal(bytes("e=invalid-proof")));
    assertTrue(e.getMessage().contains("invalid-proof"), e.getMessage());

    ScramClient odd = new ScramClient(ScramMechanism.SCRAM_SHA_512, "a=b,c", "pw", "nonce");
    assertEquals("n,,n=a=3Db=2Cc,r=nonce", text(odd.clientFirst()));
    assertThrows(IllegalStateException.class, odd::clientFirst);
  }
}
