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
package io.metaroce.samples;

import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * The embedded driver the IPC samples start: one shared thread with a backoff idle strategy. On IPC the driver is
 * not on the data path (it only moves publisher limits and cleans logs), so it should leave the CPUs to the
 * application threads: on a 2-core machine two spinning application threads plus a backoff driver is the fastest
 * arrangement. Any driver property ({@code -Dmetaroce.threading.mode=...}, {@code -Dmetaroce.dir=...}) overrides
 * these defaults.
 */
final class SampleDriver
{
    private SampleDriver()
    {
    }

    static MediaDriver launchEmbedded()
    {
        final MediaDriver.Context ctx = new MediaDriver.Context();
        if (null == System.getProperty("metaroce.threading.mode"))
        {
            ctx.threadingMode(ThreadingMode.SHARED);
        }
        if (null == System.getProperty("metaroce.shared.idle.strategy"))
        {
            ctx.sharedIdleStrategy(new BackoffIdleStrategy());
        }

        return MediaDriver.launchEmbedded(ctx);
    }
}
