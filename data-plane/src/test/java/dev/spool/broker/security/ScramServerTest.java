package dev.spool.broker.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The SCRAM server exchange against RFC 7677's test vector (SCRAM-SHA-256, user "user", password
 * "pencil"), refusals of wrong proofs and malformed messages, and PLAIN checked against a SCRAM
 * credential.
 */
class ScramServerTest {
  private static final byte[] SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
  private static final String NONCE = "rOprNGfwEbeRWgbNEkqO" + SERVER_NONCE;
  private static final String CLIENT_FINAL =
      "c=biws,r=" + NONCE + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";

  private static ScramMechanism.Credential pencil(ScramMechanism m) {
    return m.credential(SALT, 4096, m.saltedPassword("pencil", SALT, 4096));
  }

  private static ScramServer server() {
    ScramMechanism m = ScramMechanism.SCRAM_SHA_256;
    return new ScramServer(
        m, u -> u.equals("user") ? pencil(m) : null, () -> SERVER_NONCE, MOCK_SECRET);
  }

  private static final byte[] MOCK_SECRET = bytes("the broker's secret");

  /** The server-first message's attributes, by name: r, s, i. */
  private static java.util.Map<String, String> attributes(byte[] serverFirst) {
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    for (String a : new String(serverFirst, StandardCharsets.UTF_8).split(",")) {
      out.put(a.substring(0, 1), a.substring(2));
    }
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void rfc7677TestVectorAuthenticatesAndSignsTheServerFinalMessage() throws Exception {
    ScramServer s = server();
    assertEquals(
        "r=" + NONCE + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        new String(s.evaluate(bytes(CLIENT_FIRST)), StandardCharsets.UTF_8));
    assertFalse(s.isComplete());
    assertEquals(
        "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
        new String(s.evaluate(bytes(CLIENT_FINAL)), StandardCharsets.UTF_8));
    assertTrue(s.isComplete());
    assertEquals("user", s.user());
  }

  @Test
  void aWrongProofFailsWithKafkasMessageAndTheExchangeEnds() throws Exception {
    ScramServer s = server();
    s.evaluate(bytes(CLIENT_FIRST));
    String wrong = "c=biws,r=" + NONCE + ",p=" + Base64.getEncoder().encodeToString(new byte[32]);
    SaslFailure f = assertThrows(SaslFailure.class, () -> s.evaluate(bytes(wrong)));
    assertEquals(ScramServer.FAILED + "SCRAM-SHA-256", f.getMessage());
    assertTrue(f.detail().contains("wrong password"), f.detail());
    assertFalse(s.isComplete());
    assertThrows(SaslFailure.class, () -> s.evaluate(bytes(CLIENT_FINAL)));
  }

  @Test
  void anUnknownUserGetsTheSameAnswerAsAWrongPassword() throws Exception {
    // a known user and an unknown one both get a server-first message of the same shape
    java.util.Map<String, String> known = attributes(server().evaluate(bytes(CLIENT_FIRST)));
    ScramServer s = server();
    java.util.Map<String, String> unknown =
        attributes(s.evaluate(bytes("n,,n=nobody,r=rOprNGfwEbeRWgbNEkqO")));
    assertEquals(known.keySet(), unknown.keySet());
    assertEquals(NONCE, unknown.get("r"));
    assertEquals("4096", unknown.get("i"));
    byte[] salt = Base64.getDecoder().decode(unknown.get("s"));
    assertEquals(ScramMechanism.SALT_BYTES, salt.length);
    // the mock salt is the same for every attempt at that name (a real salt does not change
    // either), differs between names, and is not the known user's
    assertEquals(
        unknown.get("s"), attributes(server().evaluate(bytes("n,,n=nobody,r=x"))).get("s"));
    assertFalse(
        unknown.get("s").equals(attributes(server().evaluate(bytes("n,,n=nobody2,r=x"))).get("s")));
    assertFalse(s.isComplete());
    // the failure comes at the final message, in the words of a wrong password
    String clientFinal =
        "c=biws,r=" + NONCE + ",p=" + Base64.getEncoder().encodeToString(new byte[32]);
    SaslFailure unknownFailure =
        assertThrows(SaslFailure.class, () -> s.evaluate(bytes(clientFinal)));
    ScramServer k = server();
    k.evaluate(bytes(CLIENT_FIRST));
    SaslFailure wrongPassword =
        assertThrows(SaslFailure.class, () -> k.evaluate(bytes(clientFinal)));
    assertEquals(wrongPassword.getMessage(), unknownFailure.getMessage());
    assertEquals(ScramServer.FAILED + "SCRAM-SHA-256", unknownFailure.getMessage());
    assertTrue(unknownFailure.detail().contains("no SCRAM-SHA-256 credential"));
    assertFalse(s.isComplete());
  }

  @Test
  void anUnknownUserNeverAuthenticates() throws Exception {
    // even a client that knew the mock salt and keys could not pass: the keys are random
    ScramServer s = server();
    s.evaluate(bytes("n,,n=nobody,r=rOprNGfwEbeRWgbNEkqO"));
    assertThrows(SaslFailure.class, () -> s.evaluate(bytes(CLIENT_FINAL)));
    assertFalse(s.isComplete());
  }

  @Test
  void refusesMalformedMessagesChannelBindingTokensAndAnotherNonce() throws Exception {
    for (String first :
        new String[] {
          "",
          "n,,",
          "p=tls-unique,,n=user,r=abc",
          "n,,r=abc",
          "n,,n=user,r=abc,tokenauth=true",
          "n,a=admin,n=user,r=abc",
          "n,x=user,n=user,r=abc",
          "n,user,n=user,r=abc",
          "n,=user,n=user,r=abc",
          "n,,n=us=er,r=abc"
        }) {
      assertThrows(SaslFailure.class, () -> server().evaluate(bytes(first)), first);
    }
    ScramServer s = server();
    s.evaluate(bytes(CLIENT_FIRST));
    String otherNonce = CLIENT_FINAL.replace(SERVER_NONCE, "x");
    assertThrows(SaslFailure.class, () -> s.evaluate(bytes(otherNonce)));
  }

  @Test
  void anAuthorizationIdThatIsTheUserItselfIsAccepted() throws Exception {
    ScramServer s = server();
    s.evaluate(bytes("n,a=user,n=user,r=rOprNGfwEbeRWgbNEkqO"));
    assertFalse(s.isComplete());
  }

  @Test
  void escapedUserNamesAreUnescaped() throws Exception {
    assertEquals("a,b=c", ScramServer.unescape("a=2Cb=3Dc"));
  }

  @Test
  void sha512CredentialsWorkTheSameWay() {
    ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
    ScramMechanism.Credential c = pencil(m);
    assertEquals(64, c.storedKey().length);
    assertTrue(c.matches("pencil"));
    assertFalse(c.matches("pencil "));
  }

  @Test
  void plainIsCheckedAgainstTheScramCredential() throws Exception {
    ScramMechanism.Credential c = pencil(ScramMechanism.SCRAM_SHA_512);
    PlainServer ok = new PlainServer(u -> u.equals("user") ? c : null);
    assertArrayEquals(new byte[0], ok.evaluate(bytes("\0user\0pencil")));
    assertTrue(ok.isComplete());
    assertEquals("user", ok.user());
    assertTrue(new PlainServer(u -> c).evaluate(bytes("user\0user\0pencil")).length == 0);
    for (String bad :
        new String[] {
          "\0user\0wrong",
          "\0nobody\0pencil",
          "admin\0user\0pencil",
          "user\0pencil",
          "\0user\0pencil\0x"
        }) {
      PlainServer p = new PlainServer(u -> u.equals("user") ? c : null);
      SaslFailure f = assertThrows(SaslFailure.class, () -> p.evaluate(bytes(bad)), bad);
      assertEquals(PlainServer.FAILED, f.getMessage());
      assertFalse(p.isComplete());
    }
  }

  @Test
  void plainDerivesForAnUnknownUserBeforeFailing() {
    int[] asked = {0};
    PlainServer p =
        new PlainServer(
            u -> {
              asked[0]++;
              return null;
            });
    SaslFailure f = assertThrows(SaslFailure.class, () -> p.evaluate(bytes("\0nobody\0pw")));
    assertEquals(PlainServer.FAILED, f.getMessage());
    assertEquals(1, asked[0]);
    assertEquals(ScramMechanism.MIN_ITERATIONS, PlainServer.dummyIterations());
  }

  @Test
  void userNamesInLogDetailsAreTruncatedAndTheirControlCharactersEscaped() throws Exception {
    String forged = "eve\n2026-12-02 INFO admin logged in\u001b[31m" + "x".repeat(10_000);
    ScramServer s = server();
    s.evaluate(bytes("n,,n=" + forged + ",r=abc"));
    SaslFailure f =
        assertThrows(
            SaslFailure.class,
            () ->
                s.evaluate(
                    bytes(
                        "c=biws,r=abc"
                            + SERVER_NONCE
                            + ",p="
                            + Base64.getEncoder().encodeToString(new byte[32]))));
    assertFalse(f.detail().contains("\n"), f.detail());
    assertFalse(f.detail().contains("\u001b"), f.detail());
    assertTrue(f.detail().contains("eve\\u000a2026"), f.detail());
    assertTrue(f.detail().length() < 200, f.detail());
    assertTrue(f.detail().contains("(" + forged.length() + " chars)"), f.detail());
    PlainServer p = new PlainServer(u -> null);
    SaslFailure pf =
        assertThrows(SaslFailure.class, () -> p.evaluate(bytes("\0" + forged + "\0pw")));
    assertFalse(pf.detail().contains("\n"), pf.detail());
    assertTrue(pf.detail().length() < 200, pf.detail());
    assertEquals("'a\\u0027b\\u005cc'", LogSafe.quote("a'b\\c"));
  }
}
