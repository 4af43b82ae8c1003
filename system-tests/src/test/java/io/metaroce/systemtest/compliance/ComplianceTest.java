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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Life cycle shared by the compliance tests: each test starts a target with its settings and a raw peer, and at the
 * end the target must not have broken any of the {@link WireInvariants} in anything it sent. The target is chosen by
 * {@code -Dmetaroce.compliance.target}: {@code engine} (the default) or {@code driver}. A test that a target cannot
 * pass because of a deviation from the specification is disabled for that target only, with the reason.
 */
abstract class ComplianceTest
{
    static final String TARGET_PROPERTY = "metaroce.compliance.target";

    /**
     * Any datagram but the periodic STATUS telemetry and the STREAM_WINDOWs a receiver sends as its subscribers read:
     * what an answer to a crafted datagram would be.
     */
    static final Predicate<Datagram> ANSWER =
        (d) -> !d.is(StatusDecoder.TEMPLATE_ID) && !d.is(StreamWindowDecoder.TEMPLATE_ID);

    PeerUnderTest target;
    RawPeer peer;

    void start(final TargetSettings settings)
    {
        final String kind = targetKind();
        target = switch (kind)
        {
            case "engine" -> new EnginePeerUnderTest(settings);
            case "driver" -> new DriverPeerUnderTest(settings);
            default -> throw new IllegalArgumentException(
                TARGET_PROPERTY + ": unknown target " + kind + " (engine or driver)");
        };
        peer = new RawPeer(target);
    }

    static String targetKind()
    {
        return System.getProperty(TARGET_PROPERTY, "engine");
    }

    /**
     * The entry of {@link PeerUnderTest.PublicationUnderTest#streamEnds()} for a stream opening ended by a cause.
     */
    String end(final String cause)
    {
        return target.streamEnd(cause);
    }

    @AfterEach
    void stop()
    {
        try
        {
            if (null != peer)
            {
                peer.discardPending();
                final List<String> violations = peer.violations();
                assertEquals(List.of(), violations, "the target broke an invariant requirement");
            }
        }
        finally
        {
            CloseHelper.closeAll(peer, target);
        }
    }

    /**
     * Poll a condition of the target until it holds, at most 10 s.
     */
    static void awaitTrue(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("timed out waiting for " + what);
            }
            sleepMs(1);
        }
    }

    static void sleepMs(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
