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
package io.metaroce.driver;

import org.agrona.ErrorHandler;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The close handshake of a {@link SendEndpoint} or {@link ReceiveEndpoint} between the conductor, which decides
 * that an endpoint has no user left, and the agent that runs it, which alone may close its engine and sockets.
 * <pre>
 *   OPEN --requestClose (conductor)--&gt; CLOSE_REQUESTED --tryBeginClose (agent)--&gt; CLOSING
 *    ^                                      |                                         |
 *    +-----tryReopen (conductor, first)-----+                          onClosed (agent)
 *                                                                                     v
 *                                                                                   CLOSED
 * </pre>
 * The conductor queues the close command after {@link #requestClose()}. When a new publication or subscription
 * names the endpoint before the agent ran the command, {@link #tryReopen()} takes it back and the agent's command
 * finds nothing to do; once the agent claimed it, the conductor waits for {@code CLOSED} (sockets released, so the
 * same port can be bound again) and opens a fresh endpoint. The transitions are compare-and-set on one atomic, so
 * exactly one of reopen and close wins; {@link #onClosed()} is a release store that publishes the closed sockets to
 * the conductor's acquire load in {@link #awaitClosed()}. When all agents share the conductor's thread the
 * {@code CLOSING} state is never observed by the conductor.
 */
final class EndpointLifecycle
{
    private static final int OPEN = 0;
    private static final int CLOSE_REQUESTED = 1;
    private static final int CLOSING = 2;
    private static final int CLOSED = 3;

    private final AtomicInteger state = new AtomicInteger(OPEN);

    /**
     * Conductor: is the endpoint open for new users without a handshake?
     *
     * @return true when no close was requested.
     */
    boolean isOpen()
    {
        return OPEN == state.get();
    }

    /**
     * Agent: is a close requested and not taken back (nor claimed yet)?
     *
     * @return true in {@code CLOSE_REQUESTED}.
     */
    boolean isCloseRequested()
    {
        return CLOSE_REQUESTED == state.get();
    }

    /**
     * Conductor: the last user left; the close command is about to be queued.
     */
    void requestClose()
    {
        state.compareAndSet(OPEN, CLOSE_REQUESTED);
    }

    /**
     * Conductor: take back a requested close before the agent acts on it.
     *
     * @return true when the endpoint is open again; false when the agent closes or closed it.
     */
    boolean tryReopen()
    {
        return state.compareAndSet(CLOSE_REQUESTED, OPEN);
    }

    /**
     * Conductor: wait, yielding, for the agent to finish a close it claimed. The close is a few non-blocking socket
     * and counter releases, so the wait is short; it never happens when the agent runs on the conductor's thread.
     */
    void awaitClosed()
    {
        while (CLOSED != state.get())
        {
            Thread.yield();
        }
    }

    /**
     * Agent: claim the close unless the conductor took it back.
     *
     * @return true when the caller must close the endpoint and then call {@link #onClosed()}.
     */
    boolean tryBeginClose()
    {
        return state.compareAndSet(CLOSE_REQUESTED, CLOSING);
    }

    /**
     * Agent: close the endpoint if the conductor still wants it closed (nothing took it back in between). Errors while
     * closing go to the error handler; the endpoint is marked closed in every case.
     *
     * @param close        removes the endpoint's socket group from its engine and closes its sockets.
     * @param errorHandler for errors while closing.
     * @return true when the endpoint was closed and must leave the agent's duty cycle.
     */
    boolean closeIfRequested(final Runnable close, final ErrorHandler errorHandler)
    {
        if (!tryBeginClose())
        {
            return false;
        }

        try
        {
            close.run();
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(ex);
        }
        finally
        {
            onClosed();
        }

        return true;
    }

    /**
     * Agent: the endpoint's socket group and sockets are closed.
     */
    void onClosed()
    {
        state.setRelease(CLOSED); // release: the sockets are closed before the conductor sees CLOSED
    }

    /**
     * Is the endpoint closed for good?
     *
     * @return true once the agent (or the driver's close) released it.
     */
    boolean isClosed()
    {
        return CLOSED == state.get();
    }

    /**
     * Driver close, once the agents stopped: mark the endpoint closed whatever its state.
     */
    void forceClosed()
    {
        state.setRelease(CLOSED);
    }
}
