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
package io.metaroce.systemtest.probe;

import java.io.IOException;
import java.io.InputStream;

/**
 * Raised when standard input reaches its end: the harness closes a probe's input to stop it (and the input also ends
 * when the harness's JVM dies, so an orphaned probe stops by itself).
 */
final class StopSignal
{
    private volatile boolean raised;

    /**
     * Start a daemon thread that reads the stream until its end, then raises the signal.
     *
     * @param input the stream, normally {@code System.in}.
     * @return the signal.
     */
    static StopSignal onEndOf(final InputStream input)
    {
        final StopSignal signal = new StopSignal();
        final Thread watcher = new Thread(() -> signal.awaitEnd(input), "probe-stdin");
        watcher.setDaemon(true);
        watcher.start();

        return signal;
    }

    boolean isRaised()
    {
        return raised;
    }

    private void awaitEnd(final InputStream input)
    {
        final byte[] discard = new byte[256];
        try
        {
            int read;
            do
            {
                read = input.read(discard);
            }
            while (read >= 0);
        }
        catch (final IOException ignore)
        {
            // an unreadable input counts as ended
        }
        raised = true;
    }
}
