package dev.spool.broker.kafka.codec;

import com.google.protobuf.ByteString;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import dev.spool.protocol.message.DescribeUserScramCredentialsRequest;
import dev.spool.protocol.message.DescribeUserScramCredentialsResponse;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;

/**
 * Kafka's AlterUserScramCredentials and DescribeUserScramCredentials as Spool's messages of the
 * same names ({@code kafka-configs --alter --add-config 'SCRAM-SHA-256=[password=...]'} sends the
 * first). Kafka numbers mechanisms (1 SCRAM-SHA-256, 2 SCRAM-SHA-512), Spool names them; a number
 * Kafka does not know becomes a name the controller refuses with UNSUPPORTED_SASL_MECHANISM.
 *
 * <p>Threads: stateless; any thread.
 */
public final class ScramCodec {
  private ScramCodec() {}

  static String mechanism(byte type) {
    return switch (type) {
      case 1 -> "SCRAM-SHA-256";
      case 2 -> "SCRAM-SHA-512";
      default -> "UNKNOWN(" + type + ")";
    };
  }

  static byte type(String mechanism) {
    return switch (mechanism) {
      case "SCRAM-SHA-256" -> 1;
      case "SCRAM-SHA-512" -> 2;
      default -> 0;
    };
  }

  public static AlterUserScramCredentialsRequest alterToSpool(KafkaRequest request, int timeoutMs) {
    AlterUserScramCredentialsRequestData d = request.body();
    AlterUserScramCredentialsRequest.Builder b =
        AlterUserScramCredentialsRequest.newBuilder().setTimeoutMs(timeoutMs);
    for (var del : d.deletions()) {
      b.addDeletions(
          AlterUserScramCredentialsRequest.Deletion.newBuilder()
              .setName(del.name())
              .setMechanism(mechanism(del.mechanism())));
    }
    for (var u : d.upsertions()) {
      b.addUpsertions(
          AlterUserScramCredentialsRequest.Upsertion.newBuilder()
              .setName(u.name())
              .setMechanism(mechanism(u.mechanism()))
              .setIterations(u.iterations())
              .setSalt(ByteString.copyFrom(u.salt()))
              .setSaltedPassword(ByteString.copyFrom(u.saltedPassword())));
    }
    return b.build();
  }

  public static KafkaResponse alterToKafka(
      KafkaRequest request, AlterUserScramCredentialsResponse resp) {
    List<AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult> results =
        new ArrayList<>();
    for (AlterUserScramCredentialsResponse.Result r : resp.getResultsList()) {
      results.add(
          new AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult()
              .setUser(r.getUser())
              .setErrorCode(KafkaErrors.code(r.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(r.getErrorMessage())));
    }
    return request.respond(
        new AlterUserScramCredentialsResponseData().setThrottleTimeMs(0).setResults(results));
  }

  public static DescribeUserScramCredentialsRequest describeToSpool(KafkaRequest request) {
    DescribeUserScramCredentialsRequestData d = request.body();
    DescribeUserScramCredentialsRequest.Builder b =
        DescribeUserScramCredentialsRequest.newBuilder();
    if (d.users() != null) {
      d.users().forEach(u -> b.addUsers(u.name()));
    }
    return b.build();
  }

  public static KafkaResponse describeToKafka(
      KafkaRequest request, DescribeUserScramCredentialsResponse resp) {
    DescribeUserScramCredentialsRequestData d = request.body();
    List<DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult> results =
        new ArrayList<>();
    for (DescribeUserScramCredentialsResponse.Result r : resp.getResultsList()) {
      List<DescribeUserScramCredentialsResponseData.CredentialInfo> infos = new ArrayList<>();
      r.getCredentialsList()
          .forEach(
              c ->
                  infos.add(
                      new DescribeUserScramCredentialsResponseData.CredentialInfo()
                          .setMechanism(type(c.getMechanism()))
                          .setIterations(c.getIterations())));
      results.add(
          new DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult()
              .setUser(r.getUser())
              .setErrorCode(KafkaErrors.code(r.getErrorCode()))
              .setErrorMessage(KafkaErrors.message(r.getErrorMessage()))
              .setCredentialInfos(infos));
    }
    return request.respond(
        new DescribeUserScramCredentialsResponseData()
            .setThrottleTimeMs(0)
            .setErrorCode(KafkaErrors.code(resp.getErrorCode()))
            .setErrorMessage(KafkaErrors.message(resp.getErrorMessage()))
            .setResults(results));
  }
}
