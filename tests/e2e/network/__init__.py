"""The transport under strain: nginx and a forgetful relay, rate limits, lost channels, dropped gateways."""
