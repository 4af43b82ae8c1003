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
package io.metaroce.client.logbuffer;

import org.agrona.DirectBuffer;

/**
 * Receives fragments from a controlled poll and decides, fragment by fragment, how the poll goes on.
 */
@FunctionalInterface
public interface ControlledFragmentHandler
{
    /**
     * What a controlled poll does after a fragment.
     */
    enum Action
    {
        /**
         * Do not consume this fragment: the poll stops and the next poll delivers it again.
         */
        ABORT,

        /**
         * Consume this fragment and stop the poll.
         */
        BREAK,

        /**
         * Consume this fragment, make the position visible to the driver now, and continue.
         */
        COMMIT,

        /**
         * Consume this fragment and continue.
         */
        CONTINUE
    }

    /**
     * Called for each fragment read, on the polling thread. The buffer is only valid during the call.
     *
     * @param buffer holding the payload.
     * @param offset of the payload.
     * @param length of the payload.
     * @param header of the frame that carried it.
     * @return how the poll continues.
     */
    Action onFragment(DirectBuffer buffer, int offset, int length, Header header);
}
