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
package io.metaroce.datapath.congestion;

import io.metaroce.datapath.settings.Configuration;

/**
 * {@link AimdCongestionControl} keeps the contracts of {@link CongestionControl}, made by its supplier with the default
 * tunables, as an engine makes it.
 */
class AimdCongestionControlContractTest extends CongestionControlContractTest
{
    CongestionControl newController(final int mtu, final long initialWindow, final long maxWindow, final int planeCount)
    {
        return AimdCongestionControl.supplier(
            Configuration.CC_ADDITIVE_INCREASE_DEFAULT, Configuration.CC_MAX_MDF_DEFAULT,
            Configuration.CC_SLACK_NS_DEFAULT, Configuration.PACING_GAIN_DEFAULT)
            .newInstance(mtu, initialWindow, maxWindow, planeCount);
    }
}
