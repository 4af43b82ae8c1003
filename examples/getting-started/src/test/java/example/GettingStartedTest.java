package example;

import io.metaroce.client.MetaRoce;
import io.metaroce.test.MetaRoceExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The example's exchanges as a test, with the driver and client of metaroce-test-support: each test gets an embedded
 * driver in a fresh directory, its error log is printed if the test fails, and everything is removed afterwards.
 */
@ExtendWith(MetaRoceExtension.class)
class GettingStartedTest
{
    @Test
    void shouldExchangeMessagesOverIpc(final MetaRoce client)
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertDoesNotThrow(
            () -> GettingStarted.exchange(client, "metaroce:ipc", "metaroce:ipc")));
    }

    @Test
    void shouldExchangeMessagesOverTwoPlanes(final MetaRoce client)
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertDoesNotThrow(
            () -> GettingStarted.exchange(client,
                "metaroce:udp?endpoint=127.0.0.2:40457,127.0.0.3:40457",
                "metaroce:udp?endpoint=127.0.0.2:40457,127.0.0.3:40457|interface=127.0.1.1,127.0.1.2")));
    }
}
