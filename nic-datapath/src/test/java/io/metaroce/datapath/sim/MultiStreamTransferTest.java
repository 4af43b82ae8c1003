/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.stream.TerminationCause;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several publications of one sender on one connection to one receiver, one of them losing packets (its first DATA
 * three times over, then every fifth first transmission): every stream arrives exactly once and in order, and the
 * lossy stream's hole holds no other stream back. Seeds are fixed and printed; {@code -Dmetaroce.sim.seed=S} replays
 * one.
 */
class MultiStreamTransferTest
{
    private static final long S = TimeUnit.SECONDS.toNanos(1);
    private static final int STREAMS = 4;
    private static final int LOSSY_SESSION = 2;

    static LongStream seeds()
    {
        final Long seed = Long.getLong("metaroce.sim.seed");
        return null != seed ? LongStream.of(seed) : LongStream.of(1, 42, 20_261_205);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldDeliverEveryStreamOfOneConnectionExactlyOnceWithoutHoldingThemBehindALossyOne(final long seed)
    {
        System.out.println("MultiStreamTransferTest seed " + seed + " (replay with -Dmetaroce.sim.seed=" + seed + ")");
        final MultiStreamScenario scenario = new MultiStreamScenario().seed(seed);
        scenario.streamCount = STREAMS;
        scenario.watchedSession = LOSSY_SESSION;
        final StreamDropFilter filter = new StreamDropFilter(LOSSY_SESSION, 3, 5, STREAMS,
            MultiStreamScenario.INITIAL_TERM_ID, scenario.termLength);
        scenario.lossGenerator = filter;
        scenario.build();

        final SenderConnection connection = scenario.senderStreams[0].connection();
        for (int i = 1; i < STREAMS; i++)
        {
            assertSame(connection, scenario.senderStreams[i].connection(), "one connection for every stream");
        }
        assertTrue(scenario.run(30 * S), scenario::describe);

        // Every stream exactly once, in order, closed normally; all of it over one connection each side.
        assertNull(scenario.violation(), scenario::describe);
        for (int i = 0; i < STREAMS; i++)
        {
            assertTrue(scenario.streams[i].isComplete(), scenario::describe);
            assertEquals(TerminationCause.NORMAL, scenario.senderTermination[i], scenario::describe);
        }
        assertEquals(1, scenario.senderEngine.senderCount());
        assertEquals(1, scenario.receiverEngine.receiverCount());
        assertEquals(ConnectionState.ESTABLISHED, connection.state(), "it lingers, stream-less, after the last");
        assertTrue(filter.dropped >= 3, scenario::describe);
        assertTrue(connection.retransmits() >= filter.dropped, scenario::describe);
        assertTrue(scenario.checker.datagramsChecked() > 0);

        // No head-of-line blocking across streams: before the lossy stream's hole (its first DATA) was repaired, each
        // other stream had been acknowledged beyond the first DATA it sent after the hole, and had delivered data.
        assertNotNull(scenario.acknowledgedAtWatchedFirstAck, scenario::describe);
        int checked = 0;
        for (int session = 1; session <= STREAMS; session++)
        {
            if (LOSSY_SESSION == session)
            {
                continue;
            }
            final long afterHole = filter.firstEndAfterHole(session);
            if (afterHole > 0)
            {
                checked++;
                assertTrue(scenario.acknowledgedAtWatchedFirstAck[session - 1] >= afterHole,
                    () -> "session held back by the hole: " + scenario.describe());
                assertTrue(scenario.deliveredAtWatchedFirstAck[session - 1] > 0, scenario::describe);
            }
        }
        assertTrue(checked > 0, () -> "no stream sent anything while the hole was open: " + scenario.describe());
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldDeliverEveryOneOfMoreStreamsThanOneSendCallLooksAtExactlyOnce(final long seed)
    {
        System.out.println("MultiStreamTransferTest many streams, seed " + seed + " (replay with -Dmetaroce.sim.seed=" +
            seed + ")");
        // Streams end at different times, so the sender's active streams come and go while the others are found by
        // its bounded scan: more than two scan batches of streams.
        final int streams = 2 * SenderConnection.STREAM_SCAN_BATCH + 89;
        final MultiStreamScenario scenario = new MultiStreamScenario().seed(seed);
        scenario.streamCount = streams;
        scenario.messageCount = 6;
        scenario.maxMessageLength = 700;
        scenario.build();

        assertTrue(scenario.run(60 * S), scenario::describe);
        assertNull(scenario.violation(), scenario::describe);
        for (int i = 0; i < streams; i++)
        {
            assertTrue(scenario.streams[i].isComplete(), scenario::describe);
            assertEquals(TerminationCause.NORMAL, scenario.senderTermination[i], scenario::describe);
        }
        assertEquals(1, scenario.senderEngine.senderCount());
    }
}
