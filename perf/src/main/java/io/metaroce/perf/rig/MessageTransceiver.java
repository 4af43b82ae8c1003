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
package io.metaroce.perf.rig;

/**
 * The measuring end of an echo: sends messages that carry their intended send time and receives the echoes.
 * <p>
 * Called from one thread only. {@link #send(long, int)} and {@link #receive()} must not block and must not allocate.
 */
public interface MessageTransceiver extends AutoCloseable
{
    /**
     * Callback for every echo received.
     */
    @FunctionalInterface
    interface EchoListener
    {
        /**
         * An echo of a message arrived.
         *
         * @param timestampNs the intended send time the message carried.
         */
        void onEcho(long timestampNs);
    }

    /**
     * Try to send one message.
     *
     * @param timestampNs intended send time to carry in the first 8 bytes of the message.
     * @param length      of the message in bytes, at least 8.
     * @return true if the message was sent, false if the transport pushed back and the caller should retry.
     */
    boolean send(long timestampNs, int length);

    /**
     * Poll for echoes, calling the listener once for each.
     *
     * @return the number of echoes received.
     */
    int receive();

    /**
     * Release the resources of this end.
     */
    @Override
    void close();
}
