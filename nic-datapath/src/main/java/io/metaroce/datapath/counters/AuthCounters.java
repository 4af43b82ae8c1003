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
package io.metaroce.datapath.counters;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * The authentication of one authenticated connection, shown beside the connection's own counters and of the same
 * type: {@code snd-auth-state} or {@code rcv-auth-state} ({@link #HANDSHAKE} until the handshake completes, then
 * {@link #INTEGRITY} or {@link #ENCRYPTED}) and {@code snd-auth-key-epoch} or {@code rcv-auth-key-epoch} (the epoch
 * of the keys this side seals under, from 0: how often they changed by themselves). Allocated only for an
 * authenticated connection, and set by the connection's timers, so that sealing writes nothing more.
 */
public final class AuthCounters implements AutoCloseable
{
    /**
     * Counters an authenticated connection adds to its own.
     */
    public static final int COUNTERS = 2;

    /**
     * State: the handshake rides in SETUP and SETUP_ACK and is not complete yet.
     */
    public static final int HANDSHAKE = 1;

    /**
     * State: keyed, every datagram authenticated, DATA bodies in the clear.
     */
    public static final int INTEGRITY = 2;

    /**
     * State: keyed, every datagram authenticated, DATA bodies encrypted.
     */
    public static final int ENCRYPTED = 3;

    private static final String[] STATE_NAMES = { "HANDSHAKE", "INTEGRITY", "ENCRYPTED" };

    private final AtomicCounter state;
    private final AtomicCounter keyEpoch;

    /**
     * The name of a state, as the tools show it.
     *
     * @param authState a value of the state counter.
     * @return HANDSHAKE, INTEGRITY, ENCRYPTED, or the number when it is none of them.
     */
    public static String stateName(final long authState)
    {
        return authState >= HANDSHAKE && authState <= ENCRYPTED ?
            STATE_NAMES[(int)authState - HANDSHAKE] : Long.toString(authState);
    }

    /**
     * Allocate the counters of a connection.
     *
     * @param countersManager where.
     * @param typeId          the type of the connection's own counters.
     * @param prefix          {@code snd} or {@code rcv}.
     * @param context         the label context of the connection's own counters.
     */
    public AuthCounters(
        final CountersManager countersManager, final int typeId, final String prefix, final String context)
    {
        state = DatapathCounters.allocate(countersManager, typeId, prefix + "-auth-state", context);
        try
        {
            keyEpoch = DatapathCounters.allocate(countersManager, typeId, prefix + "-auth-key-epoch", context);
        }
        catch (final RuntimeException ex)
        {
            state.close();
            throw ex;
        }
        state.setRelease(HANDSHAKE);
    }

    /**
     * Show the connection's authentication now.
     *
     * @param authState {@link #HANDSHAKE}, {@link #INTEGRITY} or {@link #ENCRYPTED}.
     * @param epoch     the epoch of the keys this side seals under.
     */
    public void update(final int authState, final long epoch)
    {
        if (state.get() != authState)
        {
            state.setRelease(authState);
        }
        if (keyEpoch.get() != epoch)
        {
            keyEpoch.setRelease(epoch);
        }
    }

    /**
     * Free the counters.
     */
    public void close()
    {
        CloseHelper.closeAll(state, keyEpoch);
    }
}
