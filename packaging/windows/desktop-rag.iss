; Inno Setup script: a per-user installer for the one-folder app that make_bundle.py builds.
; Build on Windows (packaging/README.md):  iscc packaging\windows\desktop-rag.iss
; Output: dist\desktop-rag-<version>-windows-setup.exe

#define AppName "Desktop RAG"
#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define Bundle "..\..\dist\desktop-rag"

[Setup]
AppId={{6A5C2E0B-8F4D-4B7E-9C21-3D7A1E5F0B42}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=Desktop RAG
DefaultDirName={localappdata}\Programs\Desktop RAG
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
; Per user: no administrator rights, nothing outside the user's profile.
PrivilegesRequired=lowest
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=desktop-rag-{#AppVersion}-windows-setup
SetupIconFile=..\..\build\icons\desktop-rag.ico
UninstallDisplayIcon={app}\Desktop RAG.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern

[Files]
Source: "{#Bundle}\*"; DestDir: "{app}"; Flags: recursesubdirs createallsubdirs ignoreversion

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\Desktop RAG.exe"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\Desktop RAG.exe"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Run]
Filename: "{app}\Desktop RAG.exe"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent
