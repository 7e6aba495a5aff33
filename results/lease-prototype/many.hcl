queue "bench" {
  batch_size = 200
}
task "noop.0000" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0001" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0002" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0003" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0004" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0005" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0006" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0007" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0008" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0009" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0010" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0011" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0012" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0013" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0014" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0015" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0016" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0017" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0018" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0019" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0020" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0021" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0022" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0023" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0024" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0025" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0026" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0027" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0028" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0029" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0030" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0031" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0032" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0033" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0034" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0035" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0036" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0037" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0038" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0039" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0040" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0041" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0042" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0043" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0044" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0045" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0046" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0047" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0048" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0049" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0050" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0051" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0052" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0053" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0054" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0055" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0056" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0057" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0058" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0059" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0060" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0061" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0062" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0063" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0064" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0065" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0066" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0067" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0068" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0069" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0070" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0071" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0072" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0073" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0074" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0075" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0076" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0077" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0078" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0079" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0080" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0081" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0082" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0083" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0084" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0085" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0086" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0087" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0088" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0089" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0090" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0091" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0092" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0093" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0094" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0095" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0096" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0097" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0098" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0099" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0100" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0101" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0102" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0103" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0104" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0105" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0106" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0107" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0108" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0109" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0110" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0111" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0112" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0113" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0114" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0115" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0116" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0117" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0118" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0119" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0120" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0121" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0122" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0123" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0124" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0125" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0126" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0127" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0128" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0129" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0130" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0131" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0132" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0133" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0134" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0135" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0136" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0137" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0138" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0139" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0140" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0141" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0142" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0143" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0144" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0145" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0146" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0147" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0148" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0149" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0150" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0151" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0152" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0153" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0154" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0155" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0156" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0157" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0158" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0159" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0160" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0161" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0162" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0163" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0164" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0165" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0166" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0167" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0168" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0169" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0170" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0171" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0172" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0173" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0174" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0175" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0176" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0177" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0178" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0179" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0180" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0181" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0182" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0183" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0184" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0185" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0186" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0187" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0188" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0189" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0190" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0191" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0192" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0193" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0194" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0195" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0196" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0197" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0198" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0199" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0200" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0201" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0202" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0203" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0204" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0205" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0206" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0207" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0208" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0209" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0210" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0211" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0212" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0213" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0214" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0215" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0216" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0217" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0218" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0219" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0220" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0221" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0222" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0223" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0224" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0225" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0226" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0227" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0228" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0229" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0230" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0231" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0232" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0233" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0234" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0235" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0236" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0237" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0238" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0239" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0240" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0241" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0242" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0243" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0244" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0245" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0246" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0247" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0248" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0249" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0250" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0251" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0252" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0253" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0254" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0255" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0256" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0257" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0258" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0259" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0260" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0261" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0262" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0263" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0264" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0265" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0266" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0267" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0268" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0269" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0270" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0271" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0272" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0273" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0274" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0275" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0276" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0277" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0278" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0279" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0280" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0281" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0282" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0283" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0284" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0285" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0286" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0287" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0288" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0289" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0290" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0291" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0292" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0293" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0294" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0295" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0296" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0297" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0298" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0299" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0300" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0301" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0302" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0303" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0304" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0305" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0306" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0307" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0308" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0309" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0310" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0311" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0312" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0313" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0314" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0315" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0316" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0317" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0318" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0319" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0320" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0321" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0322" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0323" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0324" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0325" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0326" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0327" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0328" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0329" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0330" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0331" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0332" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0333" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0334" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0335" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0336" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0337" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0338" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0339" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0340" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0341" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0342" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0343" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0344" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0345" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0346" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0347" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0348" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0349" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0350" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0351" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0352" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0353" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0354" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0355" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0356" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0357" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0358" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0359" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0360" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0361" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0362" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0363" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0364" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0365" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0366" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0367" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0368" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0369" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0370" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0371" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0372" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0373" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0374" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0375" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0376" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0377" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0378" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0379" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0380" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0381" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0382" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0383" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0384" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0385" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0386" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0387" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0388" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0389" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0390" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0391" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0392" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0393" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0394" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0395" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0396" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0397" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0398" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0399" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0400" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0401" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0402" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0403" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0404" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0405" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0406" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0407" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0408" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0409" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0410" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0411" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0412" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0413" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0414" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0415" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0416" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0417" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0418" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0419" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0420" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0421" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0422" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0423" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0424" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0425" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0426" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0427" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0428" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0429" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0430" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0431" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0432" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0433" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0434" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0435" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0436" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0437" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0438" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0439" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0440" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0441" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0442" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0443" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0444" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0445" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0446" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0447" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0448" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0449" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0450" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0451" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0452" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0453" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0454" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0455" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0456" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0457" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0458" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0459" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0460" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0461" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0462" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0463" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0464" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0465" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0466" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0467" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0468" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0469" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0470" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0471" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0472" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0473" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0474" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0475" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0476" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0477" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0478" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0479" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0480" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0481" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0482" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0483" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0484" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0485" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0486" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0487" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0488" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0489" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0490" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0491" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0492" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0493" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0494" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0495" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0496" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0497" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0498" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0499" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0500" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0501" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0502" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0503" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0504" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0505" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0506" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0507" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0508" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0509" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0510" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0511" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0512" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0513" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0514" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0515" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0516" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0517" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0518" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0519" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0520" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0521" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0522" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0523" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0524" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0525" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0526" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0527" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0528" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0529" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0530" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0531" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0532" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0533" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0534" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0535" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0536" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0537" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0538" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0539" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0540" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0541" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0542" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0543" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0544" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0545" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0546" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0547" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0548" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0549" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0550" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0551" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0552" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0553" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0554" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0555" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0556" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0557" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0558" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0559" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0560" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0561" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0562" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0563" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0564" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0565" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0566" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0567" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0568" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0569" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0570" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0571" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0572" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0573" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0574" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0575" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0576" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0577" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0578" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0579" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0580" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0581" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0582" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0583" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0584" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0585" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0586" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0587" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0588" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0589" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0590" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0591" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0592" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0593" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0594" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0595" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0596" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0597" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0598" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0599" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0600" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0601" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0602" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0603" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0604" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0605" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0606" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0607" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0608" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0609" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0610" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0611" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0612" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0613" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0614" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0615" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0616" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0617" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0618" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0619" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0620" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0621" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0622" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0623" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0624" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0625" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0626" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0627" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0628" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0629" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0630" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0631" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0632" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0633" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0634" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0635" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0636" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0637" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0638" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0639" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0640" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0641" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0642" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0643" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0644" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0645" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0646" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0647" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0648" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0649" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0650" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0651" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0652" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0653" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0654" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0655" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0656" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0657" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0658" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0659" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0660" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0661" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0662" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0663" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0664" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0665" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0666" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0667" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0668" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0669" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0670" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0671" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0672" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0673" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0674" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0675" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0676" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0677" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0678" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0679" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0680" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0681" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0682" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0683" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0684" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0685" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0686" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0687" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0688" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0689" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0690" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0691" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0692" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0693" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0694" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0695" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0696" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0697" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0698" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0699" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0700" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0701" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0702" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0703" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0704" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0705" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0706" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0707" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0708" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0709" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0710" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0711" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0712" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0713" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0714" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0715" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0716" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0717" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0718" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0719" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0720" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0721" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0722" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0723" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0724" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0725" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0726" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0727" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0728" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0729" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0730" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0731" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0732" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0733" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0734" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0735" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0736" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0737" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0738" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0739" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0740" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0741" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0742" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0743" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0744" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0745" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0746" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0747" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0748" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0749" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0750" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0751" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0752" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0753" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0754" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0755" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0756" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0757" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0758" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0759" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0760" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0761" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0762" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0763" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0764" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0765" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0766" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0767" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0768" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0769" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0770" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0771" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0772" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0773" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0774" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0775" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0776" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0777" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0778" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0779" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0780" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0781" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0782" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0783" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0784" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0785" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0786" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0787" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0788" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0789" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0790" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0791" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0792" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0793" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0794" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0795" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0796" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0797" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0798" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0799" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0800" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0801" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0802" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0803" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0804" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0805" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0806" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0807" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0808" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0809" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0810" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0811" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0812" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0813" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0814" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0815" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0816" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0817" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0818" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0819" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0820" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0821" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0822" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0823" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0824" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0825" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0826" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0827" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0828" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0829" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0830" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0831" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0832" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0833" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0834" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0835" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0836" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0837" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0838" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0839" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0840" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0841" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0842" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0843" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0844" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0845" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0846" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0847" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0848" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0849" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0850" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0851" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0852" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0853" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0854" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0855" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0856" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0857" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0858" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0859" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0860" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0861" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0862" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0863" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0864" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0865" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0866" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0867" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0868" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0869" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0870" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0871" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0872" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0873" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0874" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0875" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0876" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0877" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0878" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0879" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0880" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0881" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0882" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0883" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0884" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0885" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0886" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0887" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0888" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0889" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0890" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0891" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0892" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0893" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0894" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0895" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0896" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0897" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0898" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0899" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0900" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0901" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0902" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0903" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0904" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0905" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0906" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0907" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0908" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0909" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0910" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0911" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0912" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0913" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0914" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0915" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0916" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0917" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0918" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0919" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0920" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0921" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0922" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0923" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0924" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0925" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0926" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0927" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0928" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0929" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0930" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0931" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0932" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0933" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0934" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0935" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0936" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0937" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0938" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0939" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0940" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0941" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0942" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0943" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0944" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0945" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0946" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0947" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0948" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0949" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0950" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0951" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0952" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0953" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0954" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0955" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0956" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0957" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0958" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0959" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0960" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0961" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0962" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0963" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0964" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0965" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0966" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0967" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0968" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0969" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0970" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0971" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0972" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0973" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0974" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0975" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0976" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0977" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0978" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0979" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0980" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0981" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0982" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0983" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0984" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0985" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0986" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0987" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0988" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0989" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0990" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0991" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0992" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0993" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0994" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0995" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0996" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0997" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0998" {
  queue = "bench"
  concurrency = 1000
}
task "noop.0999" {
  queue = "bench"
  concurrency = 1000
}
