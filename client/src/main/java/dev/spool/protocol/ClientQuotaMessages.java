package dev.spool.protocol;

import dev.spool.common.ClientQuotaEntity;

/**
 * A client quota entity between its wire form (the message's optional user and client id: an absent
 * field is a part the entity does not have) and {@link ClientQuotaEntity}
 * (docs/security.md#quotas). Threads: stateless.
 */
public final class ClientQuotaMessages {
  private ClientQuotaMessages() {}

  /** The entity a message names. */
  public static ClientQuotaEntity entity(dev.spool.protocol.message.ClientQuotaEntity m) {
    return new ClientQuotaEntity(
        m.hasUser() ? m.getUser() : null, m.hasClientId() ? m.getClientId() : null);
  }

  /** The message that names {@code e}. */
  public static dev.spool.protocol.message.ClientQuotaEntity toMessage(ClientQuotaEntity e) {
    var m = dev.spool.protocol.message.ClientQuotaEntity.newBuilder();
    if (e.user() != null) {
      m.setUser(e.user());
    }
    if (e.clientId() != null) {
      m.setClientId(e.clientId());
    }
    return m.build();
  }
}
